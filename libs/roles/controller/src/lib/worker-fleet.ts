import type * as grpc from '@grpc/grpc-js';
import { jobMessageId, type ControllerFrame, type WorkerFrame } from '@lanner/frames';

export type WorkerCall = grpc.ServerDuplexStream<WorkerFrame, ControllerFrame>;

/** A job sent to a worker whose result has not been recorded yet. */
export interface HeldJob {
  readonly tenantId: string;
  readonly executionId: string;
  readonly taskRunId: string;
  readonly attempt: number;
  readonly workerQueueId: string;
  readonly correlationId?: string;
  started: boolean;
}

// Log lines and metrics may trail a job's result by a frame or two; remember that many finished jobs per worker.
const RECENTLY_FINISHED_LIMIT = 256;

/**
 * One connected worker on one stream: its identity (from the controller, never
 * from the worker's frames), the queues its group subscribes to, its credit
 * (sum of granted slots minus jobs sent, per the Credit frame) and the jobs it holds.
 */
export class WorkerSession {
  credit = 0;
  draining = false;
  closed = false;
  lastHeardAt = Date.now();
  readonly held = new Map<string, HeldJob>();
  private readonly recentlyFinished = new Map<string, HeldJob>();

  constructor(
    readonly workerId: string,
    readonly workerName: string,
    readonly workerGroupId: string,
    readonly queueIds: readonly string[],
    private readonly call: WorkerCall,
  ) {}

  send(frame: ControllerFrame): void {
    if (!this.closed) this.call.write(frame);
  }

  canTake(queueId: string): boolean {
    return !this.closed && !this.draining && this.credit > 0 && this.queueIds.includes(queueId);
  }

  hold(job: HeldJob): void {
    this.held.set(jobMessageId(job.taskRunId, job.attempt), job);
  }

  /** The job's result is recorded: it no longer holds a slot, but its late log lines can still be placed. */
  finish(job: HeldJob): void {
    const key = jobMessageId(job.taskRunId, job.attempt);
    this.held.delete(key);
    this.recentlyFinished.set(key, job);
    if (this.recentlyFinished.size > RECENTLY_FINISHED_LIMIT) {
      const oldest = this.recentlyFinished.keys().next().value;
      if (oldest !== undefined) this.recentlyFinished.delete(oldest);
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
}

/** The workers connected to this controller. Kept in memory: the repository has no worker registry yet. */
export class WorkerFleet {
  private readonly sessions = new Map<string, WorkerSession>();

  add(session: WorkerSession): void {
    this.sessions.set(session.workerId, session);
  }

  remove(session: WorkerSession): void {
    if (this.sessions.get(session.workerId) === session) this.sessions.delete(session.workerId);
  }

  isConnected(workerId: string): boolean {
    return this.sessions.has(workerId);
  }

  all(): WorkerSession[] {
    return [...this.sessions.values()];
  }

  /** The worker with the most credit for the queue, so work spreads across the fleet. */
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
}
