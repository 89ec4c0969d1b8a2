import { Inject, Injectable, Logger } from '@nestjs/common';
import { jobMessageId, type WorkerJobMessage } from '@lanner/frames';
import type { Repositories } from '@lanner/repository';
import { REPOSITORIES } from '@lanner/runtime';
import { CLOCK, type Clock } from './clock';
import { FrameRelay } from './frame-relay';

/**
 * How many killed task runs a controller remembers, and for how long. A kill
 * only matters while its job may still wait on a worker-queue topic; a job
 * that waits longer than this is ended by its timeout (the executor's timer).
 */
export const KILLED_JOBS_LIMIT = 50_000;
export const KILLED_JOBS_MAX_AGE_MS = 6 * 60 * 60 * 1000;

interface Kill {
  readonly reason: string;
  readonly at: number;
  /** A Kill frame went to the worker holding the job. */
  sent: boolean;
}

/**
 * The task runs (task-run id + attempt) killed recently, as read from
 * `broadcast.kill`: bounded in count (the oldest goes first) and in age. Time
 * is an argument, so the rules are checked without a clock.
 *
 * Whole executions are not remembered: a kill names one task run, and the
 * executor also kills single task runs whose execution goes on (a task timeout).
 */
export class KilledJobMemory {
  /** Insertion order is kill order: the first entry is the oldest. */
  private readonly kills = new Map<string, Kill>();

  constructor(
    private readonly limit = KILLED_JOBS_LIMIT,
    private readonly maxAgeMs = KILLED_JOBS_MAX_AGE_MS,
  ) {}

  /** `sent`: a Kill frame already went to a worker holding the job. */
  remember(taskRunId: string, attempt: number, reason: string, now: number, sent = false): void {
    const key = jobMessageId(taskRunId, attempt);
    const sentBefore = this.kills.get(key)?.sent ?? false;
    // Re-inserted, so a repeated kill counts as the newest.
    this.kills.delete(key);
    this.kills.set(key, { reason, at: now, sent: sent || sentBefore });
    this.forgetOld(now);
    while (this.kills.size > this.limit) {
      const oldest = this.kills.keys().next().value;
      if (oldest === undefined) break;
      this.kills.delete(oldest);
    }
  }

  /** Why the task run's attempt was killed, when it was killed within the age limit. */
  killReason(taskRunId: string, attempt: number, now: number): string | undefined {
    this.forgetOld(now);
    return this.kills.get(jobMessageId(taskRunId, attempt))?.reason;
  }

  /**
   * The reason of a kill no worker was told about yet, marking it told: for a
   * job sent after its kill was read (it waited for a slot meanwhile).
   */
  takeUnsentKill(taskRunId: string, attempt: number, now: number): string | undefined {
    this.forgetOld(now);
    const kill = this.kills.get(jobMessageId(taskRunId, attempt));
    if (kill === undefined || kill.sent) return undefined;
    kill.sent = true;
    return kill.reason;
  }

  get size(): number {
    return this.kills.size;
  }

  private forgetOld(now: number): void {
    for (const [key, kill] of this.kills) {
      if (now - kill.at <= this.maxAgeMs) return;
      this.kills.delete(key);
    }
  }
}

/**
 * How far the executor's clock (a job's `occurredAt`) may run ahead of this
 * controller's: a job stamped up to this long after this controller began
 * following kills is still checked against the execution store.
 */
export const KILL_CHECK_CLOCK_MARGIN_MS = 10_000;

/**
 * Whether a job's kill may have been broadcast before this controller read
 * broadcasts (a controller's broadcast group starts at the end of the topic,
 * so a kill published earlier never reaches it): true for a job queued before
 * `followingSince` (with the clock margin), for every job while broadcasts are
 * not followed yet (`followingSince` undefined), and for a job whose
 * `occurredAt` cannot be read. A kill always comes after its job was queued,
 * so a job queued later has its kill, if any, read from the broadcast. Pure.
 */
export function mayHaveMissedKill(
  occurredAt: string,
  followingSince: number | undefined,
  marginMs = KILL_CHECK_CLOCK_MARGIN_MS,
): boolean {
  if (followingSince === undefined) return true;
  const queuedAt = Date.parse(occurredAt);
  return Number.isNaN(queuedAt) || queuedAt < followingSince + marginMs;
}

/** Why a job taken from its topic is not sent to any worker, and the outcome reported for it. */
export type EndedJob =
  | { readonly outcome: 'KILLED'; readonly errorMessage: string }
  | { readonly outcome: 'FAILED'; readonly errorMessage: string; readonly deadlinePassed: true };

/**
 * Whether a job is still worth a worker's slot, given the kills remembered and
 * the job's deadline (after which the executor's timeout has fired). Pure.
 */
export function endedJob(job: WorkerJobMessage, memory: KilledJobMemory, now: number): EndedJob | undefined {
  const { taskRunId, attempt, deadline } = job.payload;
  const reason = memory.killReason(taskRunId, attempt, now);
  if (reason !== undefined) {
    return {
      outcome: 'KILLED',
      errorMessage: reason === '' ? 'killed before any worker started it' : `killed before any worker started it: ${reason}`,
    };
  }
  if (deadline !== undefined && Date.parse(deadline) <= now) {
    return {
      outcome: 'FAILED',
      errorMessage: `the job reached its deadline (${deadline}) before a worker could start it`,
      deadlinePassed: true,
    };
  }
  return undefined;
}

/**
 * Keeps jobs of killed task runs, and jobs past their deadline, off the
 * workers: the dispatch asks before it waits for a slot; such a job is
 * committed without being sent and its outcome goes to the executor (KILLED,
 * or FAILED with the deadline, as a worker would report it), so the task run
 * ends even when the executor did not end it already. A kill read after its
 * job was sent reaches the worker as a Kill frame instead (BroadcastFollower).
 *
 * Kills survive a controller restart: a job queued before this controller
 * followed broadcasts (`mayHaveMissedKill`) is also checked against the
 * execution store, where the executor records the killed attempt (KILLED) when
 * it broadcasts the kill. That costs one indexed lookup per such job (shared
 * by concurrent jobs) and nothing at start, holds for any number of
 * controllers, and covers kills made while no controller ran.
 */
@Injectable()
export class KilledJobs {
  private readonly logger = new Logger(KilledJobs.name);
  readonly memory = new KilledJobMemory();
  /** When this controller began reading `lanner.broadcast` (from its end); undefined until then. */
  private followingSince: number | undefined;

  constructor(
    private readonly relay: FrameRelay,
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The broadcast consumer of this controller is in its group: every kill
   * published from now on is read. Jobs queued before (with the clock margin)
   * are still checked against the execution store.
   */
  followingKills(at = this.clock.nowMs()): void {
    this.followingSince ??= at;
  }

  /** A `broadcast.kill` was read; `sent`: a worker here holds the job and got a Kill frame. */
  killed(taskRunId: string, attempt: number, reason: string, sent: boolean): void {
    this.memory.remember(taskRunId, attempt, reason, this.clock.nowMs(), sent);
  }

  /** The reason to send a Kill frame for a held job whose kill was read before the job was sent; once per kill. */
  takeUnsentKill(taskRunId: string, attempt: number): string | undefined {
    return this.memory.takeUnsentKill(taskRunId, attempt, this.clock.nowMs());
  }

  /**
   * True when the job must not be sent; its outcome is then reported (a
   * failed publish throws, so the job stays uncommitted and comes back).
   */
  async dropIfEnded(job: WorkerJobMessage, queueId: string): Promise<boolean> {
    const { taskRunId, attempt, executionId, tenantId } = job.payload;
    const unknownKill = this.memory.killReason(taskRunId, attempt, this.clock.nowMs()) === undefined;
    // A failed lookup throws: the job stays uncommitted and comes back, it is never sent unchecked.
    if (
      unknownKill &&
      mayHaveMissedKill(job.occurredAt, this.followingSince) &&
      (await this.repositories.runningJobs.isAttemptKilled({ tenantId, taskRunId, attempt }))
    ) {
      // Remembered like a broadcast kill: a redelivery is refused without asking the store again.
      this.memory.remember(taskRunId, attempt, '', this.clock.nowMs());
      this.logger.log({ taskRunId, attempt, executionId, queue: queueId }, 'kill of a queued job found in the execution store');
    }
    const ended = endedJob(job, this.memory, this.clock.nowMs());
    if (ended === undefined) return false;
    await this.relay.jobRefused(job, ended.errorMessage, ended.outcome, ended.outcome === 'FAILED' && ended.deadlinePassed);
    this.logger.log(
      { taskRunId, attempt, executionId, queue: queueId, outcome: ended.outcome },
      ended.outcome === 'KILLED'
        ? 'job of a killed task run dropped: not sent to any worker'
        : 'job past its deadline dropped: not sent to any worker',
    );
    return true;
  }
}
