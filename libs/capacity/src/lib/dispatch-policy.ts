import { CapacityLedger, SlotLease } from './capacity-ledger';

/** Jobs waiting per worker queue (e.g. the lag the controller sees on each queue's topic). */
export type WaitingWork = ReadonlyMap<string, number>;

/**
 * FLOOR: served because the subscription had waiting work and fewer running
 * jobs than its reserved slots. ROUND_ROBIN: served from the round-robin turn
 * across subscriptions with waiting work.
 */
export type DispatchReason = 'FLOOR' | 'ROUND_ROBIN';

export interface Dispatch {
  /** Index into the ledgers passed to `next`: which worker runs the job. */
  readonly ledgerIndex: number;
  readonly workerQueueId: string;
  /** Already taken: hold it until the job's result is recorded, then release it. */
  readonly lease: SlotLease;
  readonly reason: DispatchReason;
}

/**
 * Every queue earns one slot per round and a job costs one slot, so with equal
 * weights the deficit round robin serves the queues with waiting work in turn,
 * one job each. Kept as a deficit counter so unequal weights would only change
 * the quantum.
 */
const QUANTUM = 1;
const JOB_COST = 1;

/**
 * Which of the ledgers passed to `next` may take a job now (e.g. the worker
 * has credit and is not draining). Lets a caller with thousands of workers
 * pass the same array every time instead of building a filtered copy.
 */
export type Eligible = (ledgerIndex: number) => boolean;

const everyLedger: Eligible = () => true;

/**
 * Visits ledger indices in rotation order starting at `start`: every index
 * below `count`, or only those listed in `among` (ascending). Stops as soon as
 * `visit` returns true.
 */
function visitInRotation(
  count: number,
  start: number,
  among: readonly number[] | undefined,
  visit: (ledgerIndex: number) => boolean,
): void {
  if (count === 0) return;
  const first = start % count;
  if (among === undefined) {
    for (let offset = 0; offset < count; offset++) if (visit((first + offset) % count)) return;
    return;
  }
  for (const ledgerIndex of among) if (ledgerIndex >= first && ledgerIndex < count && visit(ledgerIndex)) return;
  for (const ledgerIndex of among) {
    if (ledgerIndex >= first) return;
    if (visit(ledgerIndex)) return;
  }
}

/**
 * Decides which queue a controller serves next when slots free, over the
 * ledgers of the workers it holds:
 * 1. reserved floors first: a subscription with waiting work and fewer running
 *    jobs than reserved slots; one that can take its own idle reserved slot
 *    before one whose slots are out on loan; then the largest shortfall;
 * 2. then deficit round robin across the queues with waiting work, so a busy
 *    queue cannot starve a quiet one even without reservations.
 * Deterministic: the same calls in the same order give the same answers. It
 * keeps only the round-robin position between calls; the ledgers hold the slots.
 */
export class DispatchPolicy {
  /** Queues with waiting work that some ledger subscribes to, in the order they first waited. */
  private ring: string[] = [];
  private readonly deficit = new Map<string, number>();
  private cursor = 0;
  /** Rotates which worker is tried first, so equal candidates spread over workers. */
  private workerCursor = 0;

  /**
   * Takes a slot for the next job and returns where it goes, or undefined when
   * no waiting job can take any slot. The caller dispatches the job and lowers
   * its waiting count before asking again. Ledgers that are not `eligible` are
   * treated as absent.
   *
   * `withFloor`, when given, lists in ascending order the index of every ledger
   * with a reserved floor (a non-empty `workerQueueIdsWithFloor`). The answers
   * are the same; only floors are looked for among those ledgers alone instead
   * of the whole fleet, which matters with thousands of workers and few floors.
   */
  next(
    ledgers: readonly CapacityLedger[],
    waiting: WaitingWork,
    eligible: Eligible = everyLedger,
    withFloor?: readonly number[],
  ): Dispatch | undefined {
    return this.serveFloor(ledgers, waiting, eligible, withFloor) ?? this.serveRoundRobin(ledgers, waiting, eligible, withFloor);
  }

  private serveFloor(
    ledgers: readonly CapacityLedger[],
    waiting: WaitingWork,
    eligible: Eligible,
    withFloor: readonly number[] | undefined,
  ): Dispatch | undefined {
    let bestLedger = -1;
    let bestQueue = '';
    let bestRank = Number.POSITIVE_INFINITY;
    let bestShortfall = 0;
    visitInRotation(ledgers.length, this.workerCursor, withFloor, (ledgerIndex) => {
      const ledger = ledgers[ledgerIndex];
      // Only subscriptions with reserved slots can be short of their floor: most ledgers have none.
      const queuesWithFloor = ledger.workerQueueIdsWithFloor;
      if (queuesWithFloor.length === 0 || !eligible(ledgerIndex)) return false;
      for (const workerQueueId of queuesWithFloor) {
        if (!((waiting.get(workerQueueId) ?? 0) > 0)) continue;
        const shortfall = ledger.floorShortfall(workerQueueId);
        if (shortfall === 0) continue;
        const kind = ledger.peek(workerQueueId);
        if (kind === undefined) continue;
        // Own idle reserved slot first (rank 0), then shared or borrowed ones.
        const rank = kind === 'RESERVED' ? 0 : 1;
        if (rank < bestRank || (rank === bestRank && shortfall > bestShortfall)) {
          bestLedger = ledgerIndex;
          bestQueue = workerQueueId;
          bestRank = rank;
          bestShortfall = shortfall;
        }
      }
      return false;
    });
    if (bestLedger < 0) return undefined;
    return this.take(ledgers, bestLedger, bestQueue, 'FLOOR');
  }

  private serveRoundRobin(
    ledgers: readonly CapacityLedger[],
    waiting: WaitingWork,
    eligible: Eligible,
    withFloor: readonly number[] | undefined,
  ): Dispatch | undefined {
    this.syncRing(ledgers, waiting, eligible);
    const turns = this.ring.length;
    for (let turn = 0; turn < turns; turn++) {
      const workerQueueId = this.ring[this.cursor];
      let credit = this.deficit.get(workerQueueId) ?? 0;
      // A queue that could not take a slot on its last turn keeps the credit it earned then.
      if (credit < JOB_COST) credit += QUANTUM;
      const ledgerIndex = this.bestLedgerFor(ledgers, workerQueueId, eligible, withFloor);
      if (ledgerIndex >= 0) {
        credit -= JOB_COST;
        this.deficit.set(workerQueueId, credit);
        if (credit < JOB_COST) this.cursor = (this.cursor + 1) % this.ring.length;
        return this.take(ledgers, ledgerIndex, workerQueueId, 'ROUND_ROBIN');
      }
      this.deficit.set(workerQueueId, credit);
      this.cursor = (this.cursor + 1) % this.ring.length;
    }
    return undefined;
  }

  /**
   * The worker where the queue takes the least contended slot, each the first
   * in rotation order: an own reserved slot (only a ledger with a floor for the
   * queue has one), else a shared slot, else a borrowed one.
   */
  private bestLedgerFor(
    ledgers: readonly CapacityLedger[],
    workerQueueId: string,
    eligible: Eligible,
    withFloor: readonly number[] | undefined,
  ): number {
    let reserved = -1;
    visitInRotation(ledgers.length, this.workerCursor, withFloor, (ledgerIndex) => {
      const ledger = ledgers[ledgerIndex];
      if (!ledger.workerQueueIdsWithFloor.includes(workerQueueId) || !eligible(ledgerIndex)) return false;
      if (ledger.peek(workerQueueId) !== 'RESERVED') return false;
      reserved = ledgerIndex;
      return true;
    });
    if (reserved >= 0) return reserved;
    let shared = -1;
    let borrowed = -1;
    visitInRotation(ledgers.length, this.workerCursor, undefined, (ledgerIndex) => {
      if (!eligible(ledgerIndex)) return false;
      const kind = ledgers[ledgerIndex].peek(workerQueueId);
      // The first shared slot is the answer: no own reserved slot is left anywhere (one
      // missing from `withFloor` is still taken rather than passed over).
      if (kind === 'SHARED' || kind === 'RESERVED') shared = ledgerIndex;
      else if (kind === 'BORROWED' && borrowed < 0) borrowed = ledgerIndex;
      return shared >= 0;
    });
    return shared >= 0 ? shared : borrowed;
  }

  private take(ledgers: readonly CapacityLedger[], ledgerIndex: number, workerQueueId: string, reason: DispatchReason): Dispatch {
    // peek said a slot is there and nothing ran in between, so acquire cannot come back empty.
    const lease = ledgers[ledgerIndex].acquire(workerQueueId) as SlotLease;
    this.workerCursor = (ledgerIndex + 1) % ledgers.length;
    return { ledgerIndex, workerQueueId, lease, reason };
  }

  /**
   * DRR's active list: a queue leaves it (and forgets its credit) when its
   * waiting work runs out, and joins at the end when work arrives.
   */
  private syncRing(ledgers: readonly CapacityLedger[], waiting: WaitingWork, eligible: Eligible): void {
    const isActive = (workerQueueId: string): boolean =>
      (waiting.get(workerQueueId) ?? 0) > 0 &&
      ledgers.some((ledger, ledgerIndex) => eligible(ledgerIndex) && ledger.isSubscribed(workerQueueId));
    if (this.ring.some((workerQueueId) => !isActive(workerQueueId))) {
      const kept: string[] = [];
      let cursor = 0;
      this.ring.forEach((workerQueueId, index) => {
        if (isActive(workerQueueId)) {
          if (index < this.cursor) cursor++;
          kept.push(workerQueueId);
        } else {
          this.deficit.delete(workerQueueId);
        }
      });
      this.ring = kept;
      this.cursor = cursor < kept.length ? cursor : 0;
    }
    for (const workerQueueId of waiting.keys()) {
      if (!this.deficit.has(workerQueueId) && isActive(workerQueueId)) {
        this.ring.push(workerQueueId);
        this.deficit.set(workerQueueId, 0);
      }
    }
  }
}
