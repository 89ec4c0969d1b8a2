import { Injectable, Logger } from '@nestjs/common';
import { jobMessageId, type WorkerJobMessage } from '@lanner/frames';
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

/** Why a job taken from its topic is not sent to any worker, and the outcome reported for it. */
export type EndedJob =
  | { readonly outcome: 'KILLED'; readonly errorMessage: string }
  | { readonly outcome: 'FAILED'; readonly errorMessage: string };

/**
 * Whether a job is still worth a worker's slot, given the kills remembered and
 * the job's deadline (after which the executor's timeout has fired). Pure.
 */
export function endedJob(job: WorkerJobMessage, memory: KilledJobMemory, now: number): EndedJob | undefined {
  const { taskRunId, attempt, deadline } = job.payload;
  const reason = memory.killReason(taskRunId, attempt, now);
  if (reason !== undefined) {
    return { outcome: 'KILLED', errorMessage: reason === '' ? 'killed before any worker started it' : `killed before any worker started it: ${reason}` };
  }
  if (deadline !== undefined && Date.parse(deadline) <= now) {
    return { outcome: 'FAILED', errorMessage: `the job reached its deadline (${deadline}) before a worker could start it` };
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
 */
@Injectable()
export class KilledJobs {
  private readonly logger = new Logger(KilledJobs.name);
  readonly memory = new KilledJobMemory();

  constructor(private readonly relay: FrameRelay) {}

  /** A `broadcast.kill` was read; `sent`: a worker here holds the job and got a Kill frame. */
  killed(taskRunId: string, attempt: number, reason: string, sent: boolean): void {
    this.memory.remember(taskRunId, attempt, reason, Date.now(), sent);
  }

  /** The reason to send a Kill frame for a held job whose kill was read before the job was sent; once per kill. */
  takeUnsentKill(taskRunId: string, attempt: number): string | undefined {
    return this.memory.takeUnsentKill(taskRunId, attempt, Date.now());
  }

  /**
   * True when the job must not be sent; its outcome is then reported (a
   * failed publish throws, so the job stays uncommitted and comes back).
   */
  async dropIfEnded(job: WorkerJobMessage, queueId: string): Promise<boolean> {
    const ended = endedJob(job, this.memory, Date.now());
    if (ended === undefined) return false;
    const { taskRunId, attempt, executionId } = job.payload;
    await this.relay.jobRefused(job, ended.errorMessage, ended.outcome);
    this.logger.log(
      { taskRunId, attempt, executionId, queue: queueId, outcome: ended.outcome },
      ended.outcome === 'KILLED' ? 'job of a killed task run dropped: not sent to any worker' : 'job past its deadline dropped: not sent to any worker',
    );
    return true;
  }
}
