import type { Flow } from '@lanner/model';
import type { Execution } from '@lanner/state-machine';

/** One execution as this executor last stored it (or read it): its value, at the row's version, and its flow. */
export interface CachedExecution {
  readonly tenantId: string;
  readonly flow: Flow;
  /** `version` is the row's version: a write based on this entry names it. */
  readonly execution: Execution;
}

const key = (tenantId: string, executionId: string): string => `${tenantId}\u0000${executionId}`;

/**
 * The executions of the partitions this executor owns, as it last stored them,
 * so an event of an execution in flight needs no read. Bounded (the least
 * recently used entry goes first); an entry is dropped when its execution ends,
 * when a write based on it fails (another writer stored a newer version), and
 * every entry is dropped when the member's partitions change (`forgetAll`): a
 * partition that moved away may be written by its new owner, and one that
 * comes back must be read again.
 *
 * `generation` guards the window of a rebalance: work that loaded its
 * execution before a `forgetAll` does not put its result back (`keep` refuses
 * an entry of an older generation), so no stale value outlives the rebalance.
 */
export class ExecutionCache {
  private readonly entries = new Map<string, CachedExecution>();
  private currentGeneration = 0;

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0)
      throw new Error(`cache capacity must be a non-negative integer, got ${capacity}`);
  }

  get generation(): number {
    return this.currentGeneration;
  }

  get size(): number {
    return this.entries.size;
  }

  get(tenantId: string, executionId: string): CachedExecution | undefined {
    const id = key(tenantId, executionId);
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    // Most recently used last.
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry;
  }

  /** Keeps `entry` unless it was loaded before the last `forgetAll`; an ended execution is dropped instead. */
  keep(entry: CachedExecution, generation: number, ended: boolean): void {
    const id = key(entry.tenantId, entry.execution.id);
    this.entries.delete(id);
    if (ended || generation !== this.currentGeneration || this.capacity === 0) return;
    this.entries.set(id, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  drop(tenantId: string, executionId: string): void {
    this.entries.delete(key(tenantId, executionId));
  }

  forgetAll(): void {
    this.entries.clear();
    this.currentGeneration++;
  }
}
