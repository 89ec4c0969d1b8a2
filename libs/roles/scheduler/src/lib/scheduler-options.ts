import { QueueTopics, spineTopics } from '@lanner/frames';
import { RESERVED_WORKER_QUEUE_IDS } from '@lanner/model';
import { configDefault } from '@lanner/runtime';

/** What the scheduler role needs beyond the shared adapters. */
export interface SchedulerOptions {
  /** How often the loop looks for due schedules, on the clock's whole multiples; default 1000 ms. */
  readonly tickMs: number;
  /**
   * How long a claimed schedule stays leased to this scheduler. A scheduler
   * killed mid-evaluation leaves its lease behind; another one takes the
   * schedule over once it expires, and catches the missed dates up per
   * `recoverMissedSchedules`. Default 10 s.
   */
  readonly leaseMs: number;
  /** Schedules claimed per database round; a backlog drains over several rounds of one tick. */
  readonly claimBatch: number;
  /** Rounds run side by side in a tick (each claims its own batch), and chunks written side by side at a date; default 4. */
  readonly claimLanes: number;
  /**
   * How far ahead of their next date schedules are claimed and evaluated
   * (their executions are created at the date, never before): a date that
   * many schedules share is then one write, not a claim, a read and a write.
   * 0 claims only what is due (`LANNER_SCHEDULER_AHEAD_MS`).
   */
  readonly aheadMs: number;
  /** Rows written per statement when a date comes; default 1000. */
  readonly writeChunk: number;
  /**
   * How long a worker may take over one poll of a polling trigger (the job's
   * timeout, and how long it may wait on its queue). Default 30 s.
   */
  readonly pollTimeoutMs: number;
  /** Put before every topic name, like the other roles' option; empty in production. */
  readonly topicPrefix: string;
  /** Past dates each running backfill fires per second, at most (`LANNER_SCHEDULER_BACKFILL_PER_SECOND`). */
  readonly backfillPerSecond: number;
}

export const SCHEDULER_OPTIONS = Symbol('lanner.scheduler-options');

export function schedulerOptions(overrides: Partial<SchedulerOptions> = {}): SchedulerOptions {
  return {
    tickMs: 1000,
    leaseMs: 10_000,
    claimBatch: 500,
    claimLanes: 4,
    aheadMs: configDefault('LANNER_SCHEDULER_AHEAD_MS', 'scheduler'),
    writeChunk: 1000,
    pollTimeoutMs: 30_000,
    topicPrefix: '',
    backfillPerSecond: 10,
    ...overrides,
  };
}

export function schedulerTopics(prefix: string): { readonly executor: string; readonly ensured: readonly string[] } {
  return { executor: `${prefix}${QueueTopics.executor}`, ensured: spineTopics(RESERVED_WORKER_QUEUE_IDS, prefix) };
}
