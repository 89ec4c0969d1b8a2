import { CapacityLedger, SlotKind, SlotLease } from './capacity-ledger';

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

const KIND_RANK: Readonly<Record<SlotKind, number>> = { RESERVED: 0, SHARED: 1, BORROWED: 2 };

/**
 * Which of the ledgers passed to `next` may take a job now (e.g. the worker
 * has credit and is not draining). Lets a caller with thousands of workers
 * pass the same array every time instead of building a filtered copy.
 */
export type Eligible = (ledgerIndex: number) => boolean;

const everyLedger: Eligible = () => true;

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
   */
  next(ledgers: readonly CapacityLedger[], waiting: WaitingWork, eligible: Eligible = everyLedger): Dispatch | undefined {
    return this.serveFloor(ledgers, waiting, eligible) ?? this.serveRoundRobin(ledgers, waiting, eligible);
  }

  private serveFloor(ledgers: readonly CapacityLedger[], waiting: WaitingWork, eligible: Eligible): Dispatch | undefined {
    let bestLedger = -1;
    let bestQueue = '';
    let bestRank = Number.POSITIVE_INFINITY;
    let bestShortfall = 0;
    for (let offset = 0; offset < ledgers.length; offset++) {
      const ledgerIndex = (this.workerCursor + offset) % ledgers.length;
      const ledger = ledgers[ledgerIndex];
      // Only subscriptions with reserved slots can be short of their floor: most ledgers have none.
      const withFloor = ledger.workerQueueIdsWithFloor;
      if (withFloor.length === 0 || !eligible(ledgerIndex)) continue;
      for (const workerQueueId of withFloor) {
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
    }
    if (bestLedger < 0) return undefined;
    return this.take(ledgers, bestLedger, bestQueue, 'FLOOR');
  }

  private serveRoundRobin(ledgers: readonly CapacityLedger[], waiting: WaitingWork, eligible: Eligible): Dispatch | undefined {
    this.syncRing(ledgers, waiting, eligible);
    const turns = this.ring.length;
    for (let turn = 0; turn < turns; turn++) {
      const workerQueueId = this.ring[this.cursor];
      let credit = this.deficit.get(workerQueueId) ?? 0;
      // A queue that could not take a slot on its last turn keeps the credit it earned then.
      if (credit < JOB_COST) credit += QUANTUM;
      const ledgerIndex = this.bestLedgerFor(ledgers, workerQueueId, eligible);
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

  /** The worker where the queue takes the least contended slot: own reserved, then shared, then borrowed. */
  private bestLedgerFor(ledgers: readonly CapacityLedger[], workerQueueId: string, eligible: Eligible): number {
    let best = -1;
    let bestRank = Number.POSITIVE_INFINITY;
    for (let offset = 0; offset < ledgers.length; offset++) {
      const ledgerIndex = (this.workerCursor + offset) % ledgers.length;
      if (!eligible(ledgerIndex)) continue;
      const ledger = ledgers[ledgerIndex];
      // Once a shared slot is found only an own reserved slot beats it, and only a ledger with a floor for the queue has one.
      if (bestRank <= KIND_RANK.SHARED && !ledger.workerQueueIdsWithFloor.includes(workerQueueId)) continue;
      const kind = ledger.peek(workerQueueId);
      if (kind !== undefined && KIND_RANK[kind] < bestRank) {
        best = ledgerIndex;
        bestRank = KIND_RANK[kind];
        // Nothing ranks above an own reserved slot: the first one found is the answer.
        if (bestRank === 0) break;
      }
    }
    return best;
  }

  private take(
    ledgers: readonly CapacityLedger[],
    ledgerIndex: number,
    workerQueueId: string,
    reason: DispatchReason,
  ): Dispatch {
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
      (waiting.get(workerQueueId) ?? 0) > 0 && ledgers.some((ledger, ledgerIndex) => eligible(ledgerIndex) && ledger.isSubscribed(workerQueueId));
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
