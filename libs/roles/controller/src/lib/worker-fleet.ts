import type * as grpc from '@grpc/grpc-js';
import {
  CapacityLedger,
  ForeignSlotLease,
  type CapacitySnapshot,
  type CapacitySubscription,
  type SlotLease,
  type SubscriptionCapacity,
} from '@lanner/capacity';
import { jobMessageId, type ControllerFrame, type WorkerFrame } from '@lanner/frames';
import type { RunningJobRecord } from '@lanner/model';
import type { Clock } from './clock';

export type WorkerCall = grpc.ServerDuplexStream<WorkerFrame, ControllerFrame>;

/** A job sent to a worker whose result has not been recorded yet. */
export interface HeldJob {
  readonly tenantId: string;
  readonly executionId: string;
  readonly taskRunId: string;
  readonly attempt: number;
  readonly workerQueueId: string;
  readonly correlationId?: string;
  /** A trigger evaluation (a poll) for the scheduler: its outcome goes to `lanner.trigger-results`, not to the executor. */
  readonly triggerEvaluation?: boolean;
  started: boolean;
  /** The worker's ledger slot the job occupies; absent for a job adopted over capacity. */
  lease?: SlotLease;
  /** When its result was recorded (epoch ms): from then on it is only remembered for a while. */
  finishedAt?: number;
}

/** What the stream knows about a worker once its token and Hello are checked. */
export interface WorkerSessionInit {
  readonly workerId: string;
  readonly workerName: string;
  readonly workerGroupId: string;
  readonly registrationTokenId: string | null;
  /** From Hello: how many jobs the worker runs at once. */
  readonly slots: number;
  /** The group's subscriptions without `system` (reservedPercent 0 when unset, mode STRICT by default). */
  readonly subscriptions: readonly CapacitySubscription[];
  readonly labels: Readonly<Record<string, string>>;
  readonly connectedAt: Date;
  readonly call: WorkerCall;
  /** The controller's clock: when the worker was last heard from, when its jobs finished. */
  readonly clock: Clock;
}

/** One subscription of a connected worker, with the jobs of its queue this controller holds waiting for a slot. */
export interface WorkerSubscriptionCapacity extends SubscriptionCapacity {
  /** Jobs of the queue taken from its topic by this controller and not placed on any worker yet. */
  readonly waiting: number;
}

export interface WorkerCapacitySnapshot extends CapacitySnapshot {
  readonly subscriptions: readonly WorkerSubscriptionCapacity[];
}

/**
 * How long a finished job stays known to its worker's session: metrics (or a
 * log line) that trail its result by a frame or two are still placed, and a
 * duplicate result is recognised. Bounded by time, not only by count, so a
 * worker that has run thousands of jobs costs the memory of an idle one.
 */
export const FINISHED_JOB_MEMORY_MS = 30_000;
/** And at most this many per worker, however fast its jobs finish. */
const RECENTLY_FINISHED_LIMIT = 256;
/**
 * One connected worker on one stream: its identity (from the controller, never
 * from the worker's frames), its capacity ledger over its group's
 * subscriptions, its credit (sum of granted slots minus jobs sent, per the
 * Credit frame) and the jobs it holds. A job goes to it only when it has
 * credit AND its ledger grants a slot of the job's queue.
 */
export class WorkerSession {
  readonly workerId: string;
  readonly workerName: string;
  readonly workerGroupId: string;
  readonly registrationTokenId: string | null;
  readonly slots: number;
  readonly labels: Readonly<Record<string, string>>;
  readonly connectedAt: Date;
  /** Pure bookkeeping of this worker's slots (WORKERS.md "Capacity ledger"). */
  readonly ledger: CapacityLedger;
  credit = 0;
  closed = false;
  readonly held = new Map<string, HeldJob>();
  private readonly recentlyFinished = new Map<string, HeldJob>();
  private readonly call: WorkerCall;
  private readonly clock: Clock;
  /** Set by the fleet: told whenever one of this worker's slots frees. */
  slotFreed: (() => void) | undefined;
  /** Set by the fleet: jobs of a queue waiting for a slot on this controller. */
  waitingOf: ((workerQueueId: string) => number) | undefined;
  /** Set by the fleet: told when the ledger's layout (which queues, which floors) changed. */
  layoutChanged: (() => void) | undefined;
  private isDraining = false;
  /** Changes of what the registry shows besides the ledger's leases: draining, reconfiguration. */
  private standingChanges = 0;
  private revision = 0;
  /** What `registryRevision` last compared against. */
  private revisionSeen = { standingChanges: 0, liveLeases: 0, liveLeaseIdSum: 0 };

  /** Throws InvalidCapacityConfig (naming `slots` or `subscriptions[i]...`) when the ledger cannot be built. */
  constructor(init: WorkerSessionInit) {
    this.ledger = new CapacityLedger(init.slots, init.subscriptions);
    this.workerId = init.workerId;
    this.workerName = init.workerName;
    this.workerGroupId = init.workerGroupId;
    this.registrationTokenId = init.registrationTokenId;
    this.slots = init.slots;
    this.labels = init.labels;
    this.connectedAt = init.connectedAt;
    this.call = init.call;
    this.clock = init.clock;
  }

  /**
   * Moves when what the worker registry shows of this worker (its slots in
   * use, draining, subscriptions) differs from what it was at the previous
   * call, and only then: a job held and finished between two calls leaves it
   * where it was, so the registry rebuilds no row for it. Exact, because the
   * ledger's live-lease count and id sum tell one set of leases from any
   * later one. Allocates nothing: the registry reads it for every stream
   * several times a second.
   */
  registryRevision(): number {
    const seen = this.revisionSeen;
    const { liveLeases, liveLeaseIdSum } = this.ledger;
    if (
      seen.standingChanges !== this.standingChanges ||
      seen.liveLeases !== liveLeases ||
      seen.liveLeaseIdSum !== liveLeaseIdSum
    ) {
      seen.standingChanges = this.standingChanges;
      seen.liveLeases = liveLeases;
      seen.liveLeaseIdSum = liveLeaseIdSum;
      this.revision += 1;
    }
    return this.revision;
  }

  /** Sent Draining (or its token was revoked): no new job goes to it. */
  get draining(): boolean {
    return this.isDraining;
  }

  set draining(draining: boolean) {
    if (draining !== this.isDraining) this.standingChanges += 1;
    this.isDraining = draining;
  }

  /** The worker queues this worker serves now. */
  get queueIds(): readonly string[] {
    return this.ledger.workerQueueIds;
  }

  serves(queueId: string): boolean {
    return this.ledger.isSubscribed(queueId);
  }

  /** Takes new work at all: open, not draining, with credit. */
  get acceptsWork(): boolean {
    return !this.closed && !this.draining && this.credit > 0;
  }

  send(frame: ControllerFrame): void {
    if (!this.closed) this.call.write(frame);
  }

  /** Could take one more job of the queue now (credit and a ledger slot). */
  canTake(queueId: string): boolean {
    return this.acceptsWork && this.ledger.peek(queueId) !== undefined;
  }

  hold(job: HeldJob): void {
    this.held.set(jobMessageId(job.taskRunId, job.attempt), job);
  }

  /**
   * A job the worker already runs (listed in its Hello after a reconnect): it
   * takes a ledger slot without anything being sent. With no slot free (or a
   * queue no longer subscribed) it is held over capacity: it is running anyway.
   */
  adopt(job: HeldJob): void {
    // A lease copied from the job's previous holder belongs to that worker's ledger, not this one.
    job.lease = this.ledger.isSubscribed(job.workerQueueId) ? this.ledger.acquire(job.workerQueueId) : undefined;
    this.hold(job);
  }

  /** The job's result is recorded: its slot frees, but its late log lines can still be placed. */
  finish(job: HeldJob): void {
    const key = jobMessageId(job.taskRunId, job.attempt);
    const held = this.held.get(key) ?? job;
    this.held.delete(key);
    const now = this.clock.nowMs();
    held.finishedAt = now;
    // Deleted first, so the Map's order stays the order of finishing even for a job finished twice.
    this.recentlyFinished.delete(key);
    this.recentlyFinished.set(key, held);
    this.forgetFinishedJobs(now);
    if (this.releaseSlotOf(held) || this.releaseSlotOf(job)) this.slotFreed?.();
  }

  /**
   * Forgets the finished jobs older than FINISHED_JOB_MEMORY_MS, and the
   * oldest ones past RECENTLY_FINISHED_LIMIT. Called at each finish and each
   * heartbeat, so an idle worker's memory empties too.
   */
  forgetFinishedJobs(now = this.clock.nowMs()): void {
    if (this.recentlyFinished.size === 0) return; // an idle worker's heartbeat allocates nothing here
    const keepAfter = now - FINISHED_JOB_MEMORY_MS;
    // Oldest first (the Map keeps the order of finishing): stop at the first one to keep.
    for (const [key, job] of this.recentlyFinished) {
      if (this.recentlyFinished.size <= RECENTLY_FINISHED_LIMIT && (job.finishedAt ?? 0) > keepAfter) return;
      this.recentlyFinished.delete(key);
    }
  }

  /** A job this worker holds or held recently (for logs and duplicate results). */
  knownJob(taskRunId: string, attempt: number): { job: HeldJob; finished: boolean } | undefined {
    const key = jobMessageId(taskRunId, attempt);
    const held = this.held.get(key);
    if (held) return { job: held, finished: false };
    const finished = this.recentlyFinished.get(key);
    return finished ? { job: finished, finished: true } : undefined;
  }

  /**
   * Applies the group's new subscription list to the ledger; running jobs keep
   * their slots. Throws InvalidCapacityConfig and changes nothing when invalid.
   */
  reconfigure(subscriptions: readonly CapacitySubscription[]): { added: string[]; removed: string[] } {
    const before = new Set(this.queueIds);
    this.ledger.reconfigure(subscriptions);
    this.standingChanges += 1;
    this.layoutChanged?.();
    const after = new Set(this.queueIds);
    return {
      added: [...after].filter((queueId) => !before.has(queueId)),
      removed: [...before].filter((queueId) => !after.has(queueId)),
    };
  }

  /** The stream ended: every slot its jobs held goes back (the jobs themselves are reported lost by the stream). */
  releaseSlots(): void {
    for (const job of this.held.values()) this.releaseSlotOf(job);
  }

  capacitySnapshot(): WorkerCapacitySnapshot {
    const snapshot = this.ledger.snapshot();
    const waitingOf = this.waitingOf;
    return {
      ...snapshot,
      subscriptions: snapshot.subscriptions.map((subscription) => ({
        ...subscription,
        waiting: subscription.subscribed && waitingOf ? waitingOf(subscription.workerQueueId) : 0,
      })),
    };
  }

  /** The `waiting` figures of `capacitySnapshot`, as a string that changes whenever one of them does. */
  waitingFigures(): string {
    const waitingOf = this.waitingOf;
    if (!waitingOf) return '';
    let figures = '';
    for (const workerQueueId of this.queueIds) figures += `${waitingOf(workerQueueId)},`;
    return figures;
  }

  private releaseSlotOf(job: HeldJob): boolean {
    if (job.lease === undefined) return false;
    try {
      return this.ledger.release(job.lease);
    } catch (error) {
      // A lease of another worker's ledger: this worker never held that slot.
      if (error instanceof ForeignSlotLease) return false;
      throw error;
    }
  }
}

/** The fleet as parallel arrays: `ledgers[i]` is `sessions[i].ledger`. */
export interface DispatchView {
  readonly sessions: readonly WorkerSession[];
  readonly ledgers: readonly CapacityLedger[];
  /** The indexes, ascending, of the ledgers with a reserved floor (what DispatchPolicy.next takes as `withFloor`). */
  readonly withFloor: readonly number[];
}

/** The workers connected to this controller, each with its ledger. */
export class WorkerFleet {
  private readonly sessions = new Map<string, WorkerSession>();
  private readonly slotListeners = new Set<() => void>();
  private waitingSource: (workerQueueId: string) => number = () => 0;
  /** The sessions and their ledgers as arrays, rebuilt only when a worker joins, leaves or is reconfigured (dispatch reads them per placement). */
  private view: DispatchView | undefined;

  add(session: WorkerSession): void {
    this.sessions.set(session.workerId, session);
    this.view = undefined;
    session.slotFreed = () => this.slotFreed();
    session.waitingOf = (workerQueueId) => this.waitingSource(workerQueueId);
    session.layoutChanged = () => {
      if (this.sessions.get(session.workerId) === session) this.view = undefined;
    };
  }

  /** The worker left: it takes nothing more, and the slots of the jobs it held are freed in its ledger. */
  remove(session: WorkerSession): void {
    if (this.sessions.get(session.workerId) === session) {
      this.sessions.delete(session.workerId);
      this.view = undefined;
    }
    session.releaseSlots();
  }

  isConnected(workerId: string): boolean {
    return this.sessions.has(workerId);
  }

  get(workerId: string): WorkerSession | undefined {
    return this.sessions.get(workerId);
  }

  /** Every connected worker (a shared array: read it, do not change it). */
  all(): readonly WorkerSession[] {
    return this.dispatchView().sessions;
  }

  /** The connected workers and, at the same index, their ledgers: the same arrays until a worker joins, leaves or is reconfigured. */
  dispatchView(): DispatchView {
    if (this.view === undefined) {
      const sessions = [...this.sessions.values()];
      const ledgers = sessions.map((session) => session.ledger);
      const withFloor = ledgers.flatMap((ledger, index) => (ledger.workerQueueIdsWithFloor.length > 0 ? [index] : []));
      this.view = { sessions, ledgers, withFloor };
    }
    return this.view;
  }

  byGroup(workerGroupId: string): WorkerSession[] {
    return this.all().filter((session) => session.workerGroupId === workerGroupId);
  }

  /** Any worker here subscribed to the queue (whether or not it has a free slot). */
  serves(queueId: string): boolean {
    for (const session of this.sessions.values()) if (!session.closed && session.serves(queueId)) return true;
    return false;
  }

  /**
   * How many jobs of the queue the workers here could admit now, credit
   * aside: per open, non-draining worker, what its ledger would grant, or its
   * floor shortfall when that is larger (a queue whose reserved slots are out
   * on loan still fetches the job that claims the next freed slot). With
   * `enough`, the count stops as soon as it exceeds that number.
   */
  admissible(queueId: string, enough = Number.POSITIVE_INFINITY): number {
    let total = 0;
    for (const session of this.sessions.values()) {
      if (session.closed || session.draining) continue;
      total += Math.max(session.ledger.takeable(queueId), session.ledger.floorShortfall(queueId));
      // Callers that only compare with a number stop as soon as it is exceeded: with thousands of
      // workers a full sum per queue after every placement would cost workers x queues each time.
      if (total > enough) return total;
    }
    return total;
  }

  /** The worker with the most credit that can take a job of the queue now (credit and a ledger slot). */
  pickFor(queueId: string): WorkerSession | undefined {
    let best: WorkerSession | undefined;
    for (const session of this.sessions.values()) {
      if (session.canTake(queueId) && (best === undefined || session.credit > best.credit)) best = session;
    }
    return best;
  }

  holderOf(taskRunId: string, attempt: number): WorkerSession | undefined {
    const key = jobMessageId(taskRunId, attempt);
    return this.all().find((session) => session.held.has(key));
  }

  /** Called (synchronously) whenever a slot of any worker frees. */
  onSlotFreed(listener: () => void): () => void {
    this.slotListeners.add(listener);
    return () => this.slotListeners.delete(listener);
  }

  /** Jobs of the queue this controller took from its topic that wait for a slot. */
  waiting(workerQueueId: string): number {
    return this.waitingSource(workerQueueId);
  }

  /** Where `waiting` (and `capacitySnapshot().subscriptions[].waiting`) comes from: the dispatch. */
  setWaitingSource(source: (workerQueueId: string) => number): void {
    this.waitingSource = source;
  }

  private slotFreed(): void {
    for (const listener of this.slotListeners) listener();
  }
}

/** The job of a running-job row (after a reconnect, or for a lost report); its correlation id comes from the stored job. */
export function heldJobOfRow(row: RunningJobRecord): HeldJob {
  const stored = row.job as { correlationId?: unknown; payload?: { triggerEvaluation?: unknown } } | null;
  const correlationId =
    stored && typeof stored === 'object' && typeof stored.correlationId === 'string' ? stored.correlationId : undefined;
  const triggerEvaluation = stored !== null && typeof stored === 'object' && stored.payload?.triggerEvaluation === true;
  return {
    tenantId: row.tenantId,
    executionId: row.executionId,
    taskRunId: row.taskRunId,
    attempt: row.attempt,
    workerQueueId: row.workerQueueId,
    ...(correlationId !== undefined ? { correlationId } : {}),
    ...(triggerEvaluation ? { triggerEvaluation } : {}),
    started: true,
  };
}
