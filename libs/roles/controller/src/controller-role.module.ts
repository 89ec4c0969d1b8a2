import { DynamicModule, Module } from '@nestjs/common';
import { createInProcessQueue, createKafkaQueue } from '@lanner/queue';
import { applyMigrations, openRepositories } from '@lanner/repository';
import { AdapterLeases, queueProvider, repositoryProvider, ServerRoleSettings } from '@lanner/runtime';

/**
 * The controller role: the gRPC endpoint workers connect to, dispatch under each worker's capacity ledger and the durable running-job store. It consumes worker-job topics, writes running jobs to the repository and returns results, logs and metrics to the queue. Its gRPC server arrives in a later issue.
 *
 * Only wiring lives here. The adapters are leased from the process's adapter
 * pool, so standalone's roles share one repository and one in-process queue,
 * and they are closed after the HTTP server, queue first.
 */
@Module({})
export class ControllerRoleModule {
  static forRoot(settings: ServerRoleSettings): DynamicModule {
    return {
      module: ControllerRoleModule,
      providers: [
        AdapterLeases,
        repositoryProvider(settings.database, { openRepositories, applyMigrations }),
        queueProvider(settings.queue, { createKafkaQueue, createInProcessQueue }),
      ],
    };
  }
}
