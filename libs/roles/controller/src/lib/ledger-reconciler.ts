import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { jobMessageId } from '@lanner/frames';
import type { Repositories } from '@lanner/repository';
import { DEFAULT_WORKER_RESTART_STRATEGY } from '@lanner/model';
import { REPOSITORIES } from '@lanner/runtime';
import {
  CONTROLLER_SETTINGS,
  ControllerIdentity,
  DEFAULT_LEDGER_RECONCILE_INTERVAL_MS,
  type ControllerSettings,
} from './controller-settings';
import { CLOCK, type Clock } from './clock';
import { FrameRelay } from './frame-relay';
import { KilledJobs } from './killed-jobs';
import { UnreportedLostJobs, type RunningJobOfController } from './unreported-lost-jobs';
import { heldJobOfRow, WorkerFleet, type HeldJob, type WorkerSession } from './worker-fleet';
import { WorkerStreams } from './worker-streams';

/**
 * How long a row of this controller must stay without a stream here holding it
 * before it is reported lost again: half as long again as the adoption grace
 * (15 s for the default 10 s), so the ended stream's own check (and any
 * adoption) goes first.
 */
export function unheldRowQuietMs(adoptionGraceMs: number): number {
  return Math.round(adoptionGraceMs * 1.5);
}

/** A job one of this controller's workers held when the reconciliation began. */
export interface HeldJobOfWorker {
  readonly session: WorkerSession;
  readonly job: HeldJob;
}

/** A running-job row of this controller, as far as the reconciliation needs it. */
export interface RunningJobKey {
  readonly taskRunId: string;
  readonly attempt: number;
}

/**
 * The held jobs whose running-job row is gone: their result was recorded
 * through another path, or the liveness coordinator put them back on their
 * queue. `held` must be listed BEFORE `rows` are read: a row is written before
 * its job is held, so only a job held before the read can be told stale.
 */
export function staleHeldJobs(held: readonly HeldJobOfWorker[], rows: readonly RunningJobKey[]): HeldJobOfWorker[] {
  const recorded = new Set(rows.map((row) => jobMessageId(row.taskRunId, row.attempt)));
  return held.filter(({ job }) => !recorded.has(jobMessageId(job.taskRunId, job.attempt)));
}

/**
 * Every LANNER_LEDGER_RECONCILE_INTERVAL_MS, compares the jobs this
 * controller's workers hold with its rows of the running-job store (one query)
 * and frees the ledger slot of each held job whose row is gone, so no slot
 * leaks (WORKERS.md, "The ledger never leaks a slot"). Rows without a holder
 * here are reported lost again once no stream here has held them for
 * `unheldRowQuietMs` (a lost report whose publish failed put its row back,
 * and the liveness coordinator only answers for controllers that are gone).
 * The same pass sends the Kill frame of a held job killed before it was sent.
 */
@Injectable()
export class LedgerReconciler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(LedgerReconciler.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly unreported: UnreportedLostJobs;

  constructor(
    @Inject(CONTROLLER_SETTINGS) private readonly settings: ControllerSettings,
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    private readonly identity: ControllerIdentity,
    private readonly fleet: WorkerFleet,
    private readonly killedJobs: KilledJobs,
    private readonly streams: WorkerStreams,
    private readonly relay: FrameRelay,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.unreported = new UnreportedLostJobs(unheldRowQuietMs(streams.adoptionGraceMs));
  }

  onApplicationBootstrap(): void {
    const intervalMs = this.settings.ledgerReconcileIntervalMs ?? DEFAULT_LEDGER_RECONCILE_INTERVAL_MS;
    this.timer = setInterval(() => {
      // One pass at a time: a slow database never piles passes up.
      if (this.running) return;
      this.running = this.reconcile()
        .then(() => undefined)
        .catch((error: unknown) =>
          this.logger.warn(
            { error: error instanceof Error ? error.message : String(error) },
            'could not reconcile the worker ledgers with the running-job store; will retry',
          ),
        )
        .finally(() => (this.running = undefined));
    }, intervalMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass; returns how many slots were freed. */
  async reconcile(): Promise<number> {
    const held: HeldJobOfWorker[] = [];
    for (const session of this.fleet.all()) for (const job of session.held.values()) held.push({ session, job });
    this.sendLateKills(held);
    // Read even with no held job: rows without a stream here are what the lost-report retry looks for.
    const rows = await this.repositories.runningJobs.listHeldByController(this.identity.id);
    let freed = 0;
    for (const { session, job } of staleHeldJobs(held, rows)) {
      // Finished (or finished and held anew) while the rows were read: nothing to free.
      if (session.closed || session.held.get(jobMessageId(job.taskRunId, job.attempt)) !== job) continue;
      session.finish(job);
      freed += 1;
      this.logger.warn(
        { taskRunId: job.taskRunId, attempt: job.attempt, workerId: session.workerId, queue: job.workerQueueId },
        'held job has no running-job row any more: its slot is freed',
      );
    }
    const heldKeys = new Set(held.map(({ job }) => jobMessageId(job.taskRunId, job.attempt)));
    for (const row of this.unreported.due(rows, heldKeys, this.clock.nowMs())) {
      if (this.streams.isClosing) break;
      // In the job's turn: an adoption of it on this controller and this report never interleave.
      await this.streams
        .inTurn(jobMessageId(row.taskRunId, row.attempt), () => this.reportLostAgain(row))
        .catch((error: unknown) =>
          this.logger.error(
            { workerId: row.workerId, taskRunId: row.taskRunId, attempt: row.attempt, error: errorText(error) },
            'could not report a lost job; the next reconciliation tries again',
          ),
        );
    }
    return freed;
  }

  /**
   * Reports a job lost whose row this controller still holds for a worker no
   * stream here holds it for: one conditional DELETE for that holder, then
   * `task-run.worker-lost`; if that publish fails the row is put back and the
   * next pass tries again. Call within the job's turn.
   */
  private async reportLostAgain(listed: RunningJobOfController): Promise<void> {
    const { taskRunId, attempt, workerId } = listed;
    // Adopted since the rows were read.
    if (this.fleet.holderOf(taskRunId, attempt)) return;
    const store = this.repositories.runningJobs;
    const holder = { workerId, controllerInstanceId: this.identity.id };
    const row = await store.get(taskRunId, attempt);
    if (row === null || row.workerId !== workerId || row.controllerInstanceId !== this.identity.id) return;
    if (!(await store.removeLostIfHeldBy(taskRunId, attempt, holder))) return;
    const job = heldJobOfRow(row);
    try {
      const restartStrategy = await this.repositories.workerGroups
        .restartStrategyOfWorker(workerId)
        .catch(() => DEFAULT_WORKER_RESTART_STRATEGY);
      await this.relay.workerLost(
        workerId,
        job,
        `worker ${workerId} lost: its stream ended and no stream took the job back`,
        restartStrategy,
      );
    } catch (error) {
      await store
        .restoreUnreported(row)
        .catch((restoreError: unknown) =>
          this.logger.error(
            { workerId, taskRunId, attempt, error: errorText(restoreError) },
            'could not keep the record of an unreported lost job',
          ),
        );
      throw error;
    }
    this.logger.warn(
      { workerId, taskRunId, attempt, executionId: job.executionId, queue: job.workerQueueId },
      'lost job reported: no stream here held it after its stream ended',
    );
  }

  /**
   * A job whose kill was read while it waited here for a slot was sent after
   * all (the dispatch checks kills only when it takes a job): its worker is
   * told now, once.
   */
  private sendLateKills(held: readonly HeldJobOfWorker[]): void {
    for (const { session, job } of held) {
      const reason = this.killedJobs.takeUnsentKill(job.taskRunId, job.attempt);
      if (reason === undefined) continue;
      session.send({ frame: { $case: 'kill', value: { taskRunId: job.taskRunId, attempt: job.attempt, reason } } });
      this.logger.log(
        { taskRunId: job.taskRunId, attempt: job.attempt, executionId: job.executionId, workerId: session.workerId },
        'kill sent to worker: its job was sent after the kill was read',
      );
    }
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
