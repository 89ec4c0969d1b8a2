/** A routing lane: tasks declare tags, the queue whose tags fit receives them. */
export interface WorkerQueue {
  /** RFC 1123 label; see `@lanner/topology` for the validation rules. */
  id: string;
  /** Non-empty set of tags (validated by `@lanner/topology`). */
  tags: readonly string[];
  /** Tenants allowed to route tasks through this queue; empty means unrestricted. */
  allowedTenants: readonly string[];
}

/**
 * The namespace of the platform's own flows (Kestra's system flows namespace): their
 * tasks go to the `system` queue whatever selector applies, and run on the
 * executor's in-process system worker.
 */
export const SYSTEM_NAMESPACE = 'system';

/** Whether a flow of this namespace is a platform flow: `system` itself or one of its children (`system.purges`). */
export function isSystemNamespace(namespace: string): boolean {
  return namespace === SYSTEM_NAMESPACE || namespace.startsWith(`${SYSTEM_NAMESPACE}.`);
}

/** Two queues collide when their tag sets are equal, whatever the order. */
export function sameTagSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  if (left.size !== right.size) return false;
  for (const tag of left) if (!right.has(tag)) return false;
  return true;
}
