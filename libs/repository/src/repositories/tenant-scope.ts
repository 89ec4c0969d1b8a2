import type { TriggerKey } from '@lanner/model';
import type { Repositories } from '../repositories';
import type { NewApiToken } from './api-token.repository';
import type { AuditLogQuery } from './audit-log.repository';
import type { NewBackfill } from './trigger.repository';

declare const SERVED_TENANT: unique symbol;

/**
 * A tenant id the tenants table vouched for: the tenant exists and is enabled.
 * Only `TenantRepository.served` gives one out, so a scope (below) is only
 * ever made for a tenant that a request may name.
 */
export type ServedTenantId = string & { readonly [SERVED_TENANT]: true };

/** The methods `K` of `T`, their leading tenant id bound: what is left is the rest of their parameters. */
type Bound<T, K extends keyof T> = {
  readonly [P in K]: T[P] extends (tenantId: string, ...rest: infer A) => infer R ? (...rest: A) => R : never;
};

function bind<T extends object, K extends keyof T>(target: T, tenantId: string, keys: readonly K[]): Bound<T, K> {
  const bound: Record<PropertyKey, unknown> = {};
  for (const key of keys) {
    const method = target[key] as unknown as (...args: unknown[]) => unknown;
    bound[key] = (...rest: unknown[]) => method.call(target, tenantId, ...rest);
  }
  return bound as Bound<T, K>;
}

type Repo<K extends keyof Repositories> = Repositories[K];

/** A trigger of the scope's tenant: its key without the tenant. */
export type TenantTriggerKey = Omit<TriggerKey, 'tenantId'>;

/**
 * The tenant data of one tenant, for the API: every method reads or writes
 * that tenant's rows only, and none takes a tenant id, so a handler holding
 * a scope cannot forget the filter or pass another tenant's id. Cross-tenant
 * work (the executor's and scheduler's claims, the instance routes) uses the
 * repositories themselves.
 */
export interface TenantRepositories {
  readonly tenantId: ServedTenantId;
  readonly flows: Bound<
    Repo<'flows'>,
    'create' | 'saveRevision' | 'getLatest' | 'getRevision' | 'listRevisions' | 'search' | 'softDelete'
  >;
  readonly executions: Bound<
    Repo<'executions'>,
    'create' | 'createIfLatest' | 'get' | 'getExecutorState' | 'markFilesPurged' | 'search' | 'stats'
  >;
  readonly logs: Bound<Repo<'logs'>, 'list'>;
  readonly metrics: Bound<Repo<'metrics'>, 'listForExecution'>;
  readonly namespaces: Bound<Repo<'namespaces'>, 'list' | 'listWorkerSelectors' | 'setWorkerSelector'>;
  readonly triggers: Bound<Repo<'triggers'>, 'search'> & {
    get(key: TenantTriggerKey): ReturnType<Repo<'triggers'>['get']>;
    setDisabled(key: TenantTriggerKey, disabled: boolean): ReturnType<Repo<'triggers'>['setDisabled']>;
    unlock(key: TenantTriggerKey): ReturnType<Repo<'triggers'>['unlock']>;
    createBackfill(key: TenantTriggerKey, backfill: NewBackfill, now: Date): ReturnType<Repo<'triggers'>['createBackfill']>;
    pauseBackfill(key: TenantTriggerKey): ReturnType<Repo<'triggers'>['pauseBackfill']>;
    resumeBackfill(key: TenantTriggerKey, now: Date): ReturnType<Repo<'triggers'>['resumeBackfill']>;
    deleteBackfill(key: TenantTriggerKey): ReturnType<Repo<'triggers'>['deleteBackfill']>;
  };
  readonly auditLogs: {
    search(query: AuditLogQuery): ReturnType<Repo<'auditLogs'>['search']>;
  };
  readonly apiTokens: Bound<Repo<'apiTokens'>, 'list' | 'get' | 'revoke'> & {
    create(token: Omit<NewApiToken, 'tenantId'>): ReturnType<Repo<'apiTokens'>['create']>;
  };
}

/** The scope of one served tenant over these repositories. */
export function tenantScope(repositories: Repositories, tenantId: ServedTenantId): TenantRepositories {
  const { triggers, apiTokens, auditLogs } = repositories;
  const key = (of: TenantTriggerKey): TriggerKey => ({ ...of, tenantId });
  return {
    tenantId,
    flows: bind(repositories.flows, tenantId, [
      'create',
      'saveRevision',
      'getLatest',
      'getRevision',
      'listRevisions',
      'search',
      'softDelete',
    ]),
    executions: bind(repositories.executions, tenantId, [
      'create',
      'createIfLatest',
      'get',
      'getExecutorState',
      'markFilesPurged',
      'search',
      'stats',
    ]),
    logs: bind(repositories.logs, tenantId, ['list']),
    metrics: bind(repositories.metrics, tenantId, ['listForExecution']),
    namespaces: bind(repositories.namespaces, tenantId, ['list', 'listWorkerSelectors', 'setWorkerSelector']),
    triggers: {
      ...bind(triggers, tenantId, ['search']),
      get: (of) => triggers.get(key(of)),
      setDisabled: (of, disabled) => triggers.setDisabled(key(of), disabled),
      unlock: (of) => triggers.unlock(key(of)),
      createBackfill: (of, backfill, now) => triggers.createBackfill(key(of), backfill, now),
      pauseBackfill: (of) => triggers.pauseBackfill(key(of)),
      resumeBackfill: (of, now) => triggers.resumeBackfill(key(of), now),
      deleteBackfill: (of) => triggers.deleteBackfill(key(of)),
    },
    auditLogs: { search: (query) => auditLogs.search({ tenantId }, query) },
    apiTokens: {
      ...bind(apiTokens, tenantId, ['list', 'get', 'revoke']),
      create: (token) => apiTokens.create({ ...token, tenantId }),
    },
  };
}
