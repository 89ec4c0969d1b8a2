import { isReservedWorkerQueueId } from '@lanner/model';
import type { SelectorMatch } from './worker-selector';
import { type WorkerQueue } from './worker-queue';

interface IndexedQueue {
  readonly queue: WorkerQueue;
  readonly tags: ReadonlySet<string>;
  /** null = unrestricted (empty `allowedTenants`). */
  readonly tenants: ReadonlySet<string> | null;
}

/** Thrown when the queue list given to the index names one id twice. */
export class DuplicateWorkerQueueId extends Error {
  constructor(readonly queueId: string) {
    super(`worker queue '${queueId}' appears twice in the queue list`);
    this.name = 'DuplicateWorkerQueueId';
  }
}

/**
 * An immutable index from tag to the worker queues carrying it, so a match
 * looks only at queues that share a tag with the selector instead of scanning
 * every queue. Build it once from the queue list and build a new one when the
 * topology changes (queues are few and change rarely; decisions are many).
 *
 * The reserved queues `default` and `system` are never matched by tags:
 * `default` is reached only by untagged work or `fallback: IGNORE`, and
 * `system` only by the platform itself.
 */
export class WorkerQueueIndex {
  private constructor(
    private readonly byId: ReadonlyMap<string, WorkerQueue>,
    /** Each list is sorted by (tag count, id): the ALL tie-break order. */
    private readonly byTag: ReadonlyMap<string, readonly IndexedQueue[]>,
  ) {}

  static build(queues: readonly WorkerQueue[]): WorkerQueueIndex {
    const byId = new Map<string, WorkerQueue>();
    const byTag = new Map<string, IndexedQueue[]>();
    for (const queue of queues) {
      if (byId.has(queue.id)) throw new DuplicateWorkerQueueId(queue.id);
      byId.set(queue.id, queue);
      if (isReservedWorkerQueueId(queue.id)) continue;
      const indexed: IndexedQueue = {
        queue,
        tags: new Set(queue.tags),
        tenants: queue.allowedTenants.length === 0 ? null : new Set(queue.allowedTenants),
      };
      for (const tag of indexed.tags) {
        const posting = byTag.get(tag);
        if (posting) posting.push(indexed);
        else byTag.set(tag, [indexed]);
      }
    }
    for (const posting of byTag.values()) posting.sort(compareBySizeThenId);
    return new WorkerQueueIndex(byId, byTag);
  }

  get size(): number {
    return this.byId.size;
  }

  get(queueId: string): WorkerQueue | undefined {
    return this.byId.get(queueId);
  }

  /**
   * The queue for these (already rendered, non-empty, distinct) tags, or
   * undefined when none fits. Tie-break (WORKERS.md): fewest tags not asked
   * for, then most asked-for tags matched, then smallest id.
   */
  match(tags: readonly string[], match: SelectorMatch, tenant: string): WorkerQueue | undefined {
    if (tags.length === 0) return undefined;
    return match === 'ALL' ? this.matchAll(tags, tenant) : this.matchAny(tags, tenant);
  }

  private matchAll(tags: readonly string[], tenant: string): WorkerQueue | undefined {
    // Every candidate carries every asked tag, so "most matched" ties and the
    // order reduces to (fewest tags, smallest id): the order of each posting
    // list. Walk the shortest list and stop at the first queue that fits.
    let shortest: readonly IndexedQueue[] | undefined;
    for (const tag of tags) {
      const posting = this.byTag.get(tag);
      if (!posting) return undefined;
      if (!shortest || posting.length < shortest.length) shortest = posting;
    }
    if (!shortest) return undefined;
    for (const candidate of shortest) {
      if (allowsTenant(candidate, tenant) && carriesAll(candidate, tags)) return candidate.queue;
    }
    return undefined;
  }

  private matchAny(tags: readonly string[], tenant: string): WorkerQueue | undefined {
    let best: IndexedQueue | undefined;
    let bestUnasked = 0;
    let bestMatched = 0;
    for (let t = 0; t < tags.length; t++) {
      const posting = this.byTag.get(tags[t]);
      if (!posting) continue;
      for (const candidate of posting) {
        // At best a candidate matches every asked tag, so it carries at least
        // (size - asked) unasked tags; the list is sorted by size, so once that
        // bound exceeds the best found, nothing further in this list can win.
        if (best && candidate.tags.size - tags.length > bestUnasked) break;
        // A queue carrying an earlier asked tag was already weighed there.
        if (seenEarlier(candidate, tags, t)) continue;
        if (!allowsTenant(candidate, tenant)) continue;
        let matched = 1;
        for (let o = t + 1; o < tags.length; o++) if (candidate.tags.has(tags[o])) matched++;
        const unasked = candidate.tags.size - matched;
        if (
          !best ||
          unasked < bestUnasked ||
          (unasked === bestUnasked && (matched > bestMatched || (matched === bestMatched && candidate.queue.id < best.queue.id)))
        ) {
          best = candidate;
          bestUnasked = unasked;
          bestMatched = matched;
        }
      }
    }
    return best?.queue;
  }
}

function carriesAll(candidate: IndexedQueue, tags: readonly string[]): boolean {
  for (let t = 0; t < tags.length; t++) if (!candidate.tags.has(tags[t])) return false;
  return true;
}

function seenEarlier(candidate: IndexedQueue, tags: readonly string[], upTo: number): boolean {
  for (let e = 0; e < upTo; e++) if (candidate.tags.has(tags[e])) return true;
  return false;
}

function allowsTenant(candidate: IndexedQueue, tenant: string): boolean {
  return candidate.tenants === null || candidate.tenants.has(tenant);
}

function compareBySizeThenId(a: IndexedQueue, b: IndexedQueue): number {
  if (a.tags.size !== b.tags.size) return a.tags.size - b.tags.size;
  // Code-unit order, not locale order: the same answer on every machine.
  return a.queue.id < b.queue.id ? -1 : a.queue.id > b.queue.id ? 1 : 0;
}
