import { DispatchPolicy, type SlotLease } from '@lanner/capacity';
import type { WorkerFleet, WorkerSession } from './worker-fleet';

/** Where a job goes: the worker, whose credit is already spent, and the ledger slot it holds. */
export interface Placement {
  readonly session: WorkerSession;
  readonly lease: SlotLease;
}

/** A job handler gave up waiting for a slot: no worker here serves its queue any more, or the controller stops. */
export class DispatchAbandoned extends Error {
  constructor(queueId: string) {
    super(`dispatch from worker queue '${queueId}' stopped (no worker left, or the controller is shutting down)`);
    this.name = 'DispatchAbandoned';
  }
}

interface Waiter {
  resolve(placement: Placement): void;
  reject(error: Error): void;
  /** A re-queued job: ahead of the queue's new work. */
  readonly first: boolean;
}

/**
 * Hands the slots of this controller's workers to the job handlers waiting
 * for them. A handler holding a job of queue Q asks `place(Q)`; whenever a
 * slot or credit may have freed, `pump` asks the DispatchPolicy (reserved
 * floors first, then deficit round robin over the shared pool) which waiting
 * queue is served next, on which worker. Credit and the ledger slot are taken
 * together in one synchronous step, so overlapping handlers never spend the
 * same credit or slot twice.
 */
export class SlotArbiter {
  private readonly policy = new DispatchPolicy();
  /** Handlers holding a job they cannot place yet, per worker queue, first come first served. */
  private readonly waiters = new Map<string, Waiter[]>();
  private readonly listeners = new Set<() => void>();
  /** The jobs waiting per queue, rebuilt for each placement of a pump (the policy reads it, never keeps it). */
  private readonly waitingCounts = new Map<string, number>();
  /** The fleet's sessions as of the running pump, which `eligible` indexes. */
  private sessions: readonly WorkerSession[] = [];
  /** Maintenance mode (or its state not known yet): no job is placed and no topic fetched; running jobs keep their slots. */
  private held = false;
  private readonly eligible = (ledgerIndex: number): boolean => this.sessions[ledgerIndex].acceptsWork;

  constructor(private readonly fleet: WorkerFleet) {
    fleet.onSlotFreed(() => this.pump());
    fleet.setWaitingSource((queueId) => this.waiting(queueId));
  }

  /**
   * Resolves once a worker has credit and a ledger slot for a job of the queue; both are then taken.
   * `first`: a re-queued job, placed after the queue's other re-queued jobs and before its new work.
   */
  place(queueId: string, first = false): Promise<Placement> {
    return new Promise<Placement>((resolve, reject) => {
      let queue = this.waiters.get(queueId);
      if (!queue) {
        queue = [];
        this.waiters.set(queueId, queue);
      }
      const waiter: Waiter = { resolve, reject, first };
      if (!first) queue.push(waiter);
      else {
        const behind = queue.findIndex((other) => !other.first);
        queue.splice(behind < 0 ? queue.length : behind, 0, waiter);
      }
      this.pump();
    });
  }

  /** Holds every placement (maintenance mode) or lets waiting jobs go again. */
  hold(held: boolean): void {
    if (this.held === held) return;
    this.held = held;
    this.pump();
  }

  get holding(): boolean {
    return this.held;
  }

  /** The placed job was not sent after all (a redelivery, a failed write): credit and slot go back. */
  giveBack(placement: Placement): void {
    placement.session.credit += 1;
    placement.session.ledger.release(placement.lease);
    this.pump();
  }

  /** Jobs of the queue held by handlers, waiting for a slot. */
  waiting(queueId: string): number {
    return this.waiters.get(queueId)?.length ?? 0;
  }

  /** Every waiting handler of the queue gives up (its job stays uncommitted for the next consumer). */
  abandon(queueId: string): void {
    const queue = this.waiters.get(queueId);
    this.waiters.delete(queueId);
    for (const waiter of queue ?? []) waiter.reject(new DispatchAbandoned(queueId));
  }

  /**
   * Whether more jobs of the queue should be fetched: fewer of its jobs wait
   * here than the workers' ledgers could admit (credit aside). A job fetched
   * while credit is short waits here, so when credit comes the policy sees
   * every queue with work (floors first), not only those fetched earlier.
   */
  admits(queueId: string): boolean {
    if (this.held) return false;
    const waiting = this.waiting(queueId);
    return waiting < this.fleet.admissible(queueId, waiting);
  }

  /** Told after every pump (to pause or resume topics). */
  onSettled(listener: () => void): void {
    this.listeners.add(listener);
  }

  /** Places as many waiting jobs as credit and slots allow, in the policy's order. */
  pump(): void {
    // Runs several times per job: its rounds share one Map and one eligibility check rather than making them afresh.
    this.placeWaiting();
    for (const listener of this.listeners) listener();
  }

  private placeWaiting(): void {
    if (this.held) return;
    const waiting = this.waitingCounts;
    const { sessions, ledgers, withFloor } = this.fleet.dispatchView();
    this.sessions = sessions;
    for (;;) {
      waiting.clear();
      for (const queueId of this.waiters.keys()) {
        const count = (this.waiters.get(queueId) as Waiter[]).length;
        if (count > 0) waiting.set(queueId, count);
      }
      if (waiting.size === 0) return;
      const dispatch = this.policy.next(ledgers, waiting, this.eligible, withFloor);
      if (!dispatch) return;
      const session = sessions[dispatch.ledgerIndex];
      session.credit -= 1;
      const waiter = this.waiters.get(dispatch.workerQueueId)?.shift() as Waiter;
      waiter.resolve({ session, lease: dispatch.lease });
    }
  }
}
