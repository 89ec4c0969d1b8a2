/** A routing lane: tasks declare tags, the queue whose tags fit receives them. */
export interface WorkerQueue {
  /** RFC 1123 label; see `@lanner/topology` for the validation rules. */
  id: string;
  /** Non-empty set of tags (validated by `@lanner/topology`). */
  tags: readonly string[];
  /** Tenants allowed to route tasks through this queue; empty means unrestricted. */
  allowedTenants: readonly string[];
}

/** Two queues collide when their tag sets are equal, whatever the order. */
export function sameTagSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  if (left.size !== right.size) return false;
  for (const tag of left) if (!right.has(tag)) return false;
  return true;
}
