// The ids every Lanner instance has from its first start, in one place: every
// role, tool and migration-time seed that names one imports it from here.

/** The tenant every instance has (the first migration creates it); it cannot be disabled. */
export const DEFAULT_TENANT_ID = 'main';

/** The worker queue of untagged work: tasks with no selector, or whose tags all rendered blank. */
export const DEFAULT_WORKER_QUEUE_ID = 'default';

/** The worker queue of platform-internal tasks, served only by the in-process system worker. */
export const SYSTEM_WORKER_QUEUE_ID = 'system';

/** The worker queues that always exist and cannot be created, changed or deleted through the API. */
export const RESERVED_WORKER_QUEUE_IDS: readonly string[] = [DEFAULT_WORKER_QUEUE_ID, SYSTEM_WORKER_QUEUE_ID];

export function isReservedWorkerQueueId(id: string): boolean {
  return id === DEFAULT_WORKER_QUEUE_ID || id === SYSTEM_WORKER_QUEUE_ID;
}

/** The worker group every instance has; it always subscribes to the default worker queue. */
export const DEFAULT_WORKER_GROUP_ID = 'default';

/**
 * The namespace of the platform's own flows (Kestra's system flows namespace): their
 * tasks go to the system worker queue whatever selector applies, and run on the
 * executor's in-process system worker.
 */
export const SYSTEM_NAMESPACE = 'system';

/** Whether a flow of this namespace is a platform flow: `system` itself or one of its children (`system.purges`). */
export function isSystemNamespace(namespace: string): boolean {
  return namespace === SYSTEM_NAMESPACE || namespace.startsWith(`${SYSTEM_NAMESPACE}.`);
}
