import { FactoryProvider, Logger } from '@nestjs/common';
import { ServerRoleConfig } from '../config/load-config';
import type { Logger as PinoLogger } from 'pino';
import { PROCESS_LOGGER, QUEUE, REPOSITORIES } from '../runtime.tokens';
import { AdapterLeases, ManagedAdapter } from './adapter-pool';

export interface DatabaseSettings {
  /** Secret: contains the password. */
  readonly url: string;
  /** Only standalone migrates at start; a deployment runs `lanner db migrate` as its own step. */
  readonly migrateAtStart: boolean;
}

export type QueueSettings =
  | { readonly kind: 'kafka'; readonly brokers: readonly string[]; readonly clientId: string; readonly namespace: string }
  | { readonly kind: 'in-process' };

/** The adapters a server role (api, executor, controller, scheduler, indexer) is wired to. */
export interface ServerRoleSettings {
  readonly database: DatabaseSettings;
  readonly queue: QueueSettings;
}

export function serverRoleSettings(config: ServerRoleConfig): ServerRoleSettings {
  return {
    database: { url: config.databaseUrl, migrateAtStart: false },
    queue: { kind: 'kafka', brokers: config.kafka.brokers, clientId: config.kafka.clientId, namespace: config.kafka.namespace },
  };
}

/**
 * The shape of @lanner/repository that the runtime uses. Role modules pass the
 * library itself; the runtime cannot import it, because the worker role depends
 * on the runtime and must never depend on a server adapter.
 */
export interface RepositoryAdapterLibrary<R extends ManagedAdapter> {
  /** Rejects when the database does not answer; the runtime then retries (see openReconnecting). */
  openRepositories(databaseUrl: string): Promise<R>;
  applyMigrations(databaseUrl: string): Promise<unknown>;
}

/** The shape of @lanner/queue that the runtime uses (see RepositoryAdapterLibrary for why). */
export interface QueueAdapterLibrary<Q extends ManagedAdapter> {
  createKafkaQueue(options: { brokers: string[]; clientId: string; namespace: string; logger: PinoLogger }): Q | Promise<Q>;
  createInProcessQueue(options: { logger: PinoLogger }): Q | Promise<Q>;
}

/** Names of the migrations a migration run reports, whatever shape the report has. */
export function appliedMigrationNames(report: unknown): string[] {
  const list = Array.isArray(report)
    ? report
    : report !== null && typeof report === 'object' && Array.isArray((report as { applied?: unknown }).applied)
      ? (report as { applied: unknown[] }).applied
      : [];
  return list.map((item) =>
    typeof item === 'string'
      ? item
      : item !== null && typeof item === 'object' && 'name' in item
        ? String((item as { name: unknown }).name)
        : String(item),
  );
}

/** Provides REPOSITORIES for a role module; the role module must also provide AdapterLeases. */
export function repositoryProvider<R extends ManagedAdapter>(
  settings: DatabaseSettings,
  library: RepositoryAdapterLibrary<R>,
): FactoryProvider<R> {
  return {
    provide: REPOSITORIES,
    inject: [AdapterLeases],
    useFactory: (leases: AdapterLeases) =>
      leases.hold({
        key: `database:${settings.url}`,
        dependency: 'database',
        closeOrder: 2,
        toleratesDownAtStart: !settings.migrateAtStart,
        open: async () => {
          if (settings.migrateAtStart) {
            const applied = appliedMigrationNames(await library.applyMigrations(settings.url));
            new Logger('Migrations').log(
              { applied },
              applied.length ? `applied ${applied.length} migration(s)` : 'schema up to date',
            );
          }
          return library.openRepositories(settings.url);
        },
      }),
  };
}

/** Provides QUEUE for a role module; the role module must also provide AdapterLeases. */
export function queueProvider<Q extends ManagedAdapter>(
  settings: QueueSettings,
  library: QueueAdapterLibrary<Q>,
): FactoryProvider<Q> {
  return {
    provide: QUEUE,
    inject: [AdapterLeases, PROCESS_LOGGER],
    useFactory: (leases: AdapterLeases, processLogger: PinoLogger) => {
      const logger = processLogger.child({ component: 'queue' });
      return leases.hold({
        key:
          settings.kind === 'kafka'
            ? `queue:kafka:${settings.brokers.join(',')}:${settings.clientId}:${settings.namespace}`
            : 'queue:in-process',
        dependency: 'queue',
        closeOrder: 1,
        toleratesDownAtStart: true,
        open: async () =>
          settings.kind === 'kafka'
            ? library.createKafkaQueue({
                brokers: [...settings.brokers],
                clientId: settings.clientId,
                namespace: settings.namespace,
                logger,
              })
            : library.createInProcessQueue({ logger }),
      });
    },
  };
}
