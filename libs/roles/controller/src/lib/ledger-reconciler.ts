import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { jobMessageId } from '@lanner/frames';
import type { Repositories } from '@lanner/repository';
import { REPOSITORIES } from '@lanner/runtime';
import { CONTROLLER_SETTINGS, ControllerIdentity, DEFAULT_LEDGER_RECONCILE_INTERVAL_MS, type ControllerSettings } from './controller-settings';
import { KilledJobs } from './killed-jobs';
import { WorkerFleet, type HeldJob, type WorkerSession } from './worker-fleet';

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
 * here are left to the result path and the liveness coordinator. The same
 * pass sends the Kill frame of a held job killed before it was sent.
 */
@Injectable()
export class LedgerReconciler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(LedgerReconciler.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    @Inject(CONTROLLER_SETTINGS) private readonly settings: ControllerSettings,
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    private readonly identity: ControllerIdentity,
    private readonly fleet: WorkerFleet,
    private readonly killedJobs: KilledJobs,
  ) {}

  onApplicationBootstrap(): void {
    const intervalMs = this.settings.ledgerReconcileIntervalMs ?? DEFAULT_LEDGER_RECONCILE_INTERVAL_MS;
    this.timer = setInterval(() => {
      // One pass at a time: a slow database never piles passes up.
      if (this.running) return;
      this.running = this.reconcile()
        .then(() => undefined)
        .catch((error: unknown) =>
          this.logger.warn({ error: error instanceof Error ? error.message : String(error) }, 'could not reconcile the worker ledgers with the running-job store; will retry'),
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
    if (held.length === 0) return 0;
    this.sendLateKills(held);
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
    return freed;
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
      this.logger.log({ taskRunId: job.taskRunId, attempt: job.attempt, executionId: job.executionId, workerId: session.workerId }, 'kill sent to worker: its job was sent after the kill was read');
    }
  }
}
