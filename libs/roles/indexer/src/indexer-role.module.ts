import { DynamicModule, Module } from '@nestjs/common';
import { createInProcessQueue, createKafkaQueue } from '@lanner/queue';
import { applyMigrations, openRepositories } from '@lanner/repository';
import { AdapterLeases, queueProvider, repositoryProvider, ServerRoleSettings } from '@lanner/runtime';
import { IndexerConsumer, INDEXER_ROLE_OPTIONS, type IndexerRoleOptions } from './indexer.consumer';

/**
 * The indexer role: copying executions, task runs, logs, metrics and audit events from the queue into the repository, in batches. It consumes the result, log, metric and audit topics and writes to the repository.
 *
 * Only wiring lives here. The adapters are leased from the process's adapter
 * pool, so standalone's roles share one repository and one in-process queue,
 * and they are closed after the HTTP server, queue first.
 */
@Module({})
export class IndexerRoleModule {
  static forRoot(settings: ServerRoleSettings, options: IndexerRoleOptions = {}): DynamicModule {
    return {
      module: IndexerRoleModule,
      providers: [
        AdapterLeases,
        repositoryProvider(settings.database, { openRepositories, applyMigrations }),
        queueProvider(settings.queue, { createKafkaQueue, createInProcessQueue }),
        { provide: INDEXER_ROLE_OPTIONS, useValue: options },
        IndexerConsumer,
      ],
    };
  }
}
