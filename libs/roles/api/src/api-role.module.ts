import { DynamicModule, Module } from '@nestjs/common';
import { createInProcessQueue, createKafkaQueue } from '@lanner/queue';
import { applyMigrations, openRepositories } from '@lanner/repository';
import { AdapterLeases, queueProvider, repositoryProvider, ServerRoleSettings } from '@lanner/runtime';

/**
 * The api role: the REST API (`/api/v1`), the web UI, SSE live updates, authentication and admin of queues, groups and tokens. It reads the repository and writes admin changes to it; it puts submissions, kills and resumes on the queue.
 *
 * Only wiring lives here. The adapters are leased from the process's adapter
 * pool, so standalone's roles share one repository and one in-process queue,
 * and they are closed after the HTTP server, queue first.
 */
@Module({})
export class ApiRoleModule {
  static forRoot(settings: ServerRoleSettings): DynamicModule {
    return {
      module: ApiRoleModule,
      providers: [
        AdapterLeases,
        repositoryProvider(settings.database, { openRepositories, applyMigrations }),
        queueProvider(settings.queue, { createKafkaQueue, createInProcessQueue }),
      ],
    };
  }
}
