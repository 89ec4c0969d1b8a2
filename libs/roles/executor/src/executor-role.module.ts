import { DynamicModule, Module } from '@nestjs/common';
import { createInProcessQueue, createKafkaQueue } from '@lanner/queue';
import { applyMigrations, openRepositories } from '@lanner/repository';
import { AdapterLeases, queueProvider, repositoryProvider, ServerRoleSettings } from '@lanner/runtime';

/**
 * The executor role: the execution state machine, the worker-queue resolver call, the delay loop, flow triggers, the liveness coordinator and the system worker. It consumes and produces execution events on the queue and keeps its own execution state in the repository.
 *
 * Only wiring lives here. The adapters are leased from the process's adapter
 * pool, so standalone's roles share one repository and one in-process queue,
 * and they are closed after the HTTP server, queue first.
 */
@Module({})
export class ExecutorRoleModule {
  static forRoot(settings: ServerRoleSettings): DynamicModule {
    return {
      module: ExecutorRoleModule,
      providers: [
        AdapterLeases,
        repositoryProvider(settings.database, { openRepositories, applyMigrations }),
        queueProvider(settings.queue, { createKafkaQueue, createInProcessQueue }),
      ],
    };
  }
}
