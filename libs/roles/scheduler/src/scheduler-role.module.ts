import { DynamicModule, Module } from '@nestjs/common';
import { createInProcessQueue, createKafkaQueue } from '@lanner/queue';
import { applyMigrations, openRepositories } from '@lanner/repository';
import { AdapterLeases, queueProvider, repositoryProvider, ServerRoleSettings } from '@lanner/runtime';

/**
 * The scheduler role: schedule (cron) and polling triggers, evaluated every second and never concurrently for one trigger. It reads trigger state from the repository and puts executions on the queue.
 *
 * Only wiring lives here. The adapters are leased from the process's adapter
 * pool, so standalone's roles share one repository and one in-process queue,
 * and they are closed after the HTTP server, queue first.
 */
@Module({})
export class SchedulerRoleModule {
  static forRoot(settings: ServerRoleSettings): DynamicModule {
    return {
      module: SchedulerRoleModule,
      providers: [
        AdapterLeases,
        repositoryProvider(settings.database, { openRepositories, applyMigrations }),
        queueProvider(settings.queue, { createKafkaQueue, createInProcessQueue }),
      ],
    };
  }
}
