import { randomUUID } from 'node:crypto';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import {
  encodeQueueMessage,
  executorEventCodec,
  jobMessageId,
  QUEUE_SCHEMA_VERSIONS,
  type EncodedQueueMessage,
} from '@lanner/frames';
import {
  DEFAULT_WORKER_RESTART_STRATEGY,
  type RunningJobRecord,
  type ServiceInstanceRecordState,
  type WorkerRestartStrategy,
} from '@lanner/model';
import type { QueuePort } from '@lanner/queue';
import { CONNECTED_WORKER_STALE_MS, heldExecutionsAwaitRelease, type Repositories } from '@lanner/repository';
import {
  DEFAULT_LIVENESS_TIMINGS,
  MetricsRegistry,
  QUEUE,
  REPOSITORIES,
  ServiceInstanceIdentity,
  type LivenessTimings,
} from '@lanner/runtime';
import type { Counter } from 'prom-client';
import type { ExecutorOptions } from './executor-options';
import { EXECUTOR_OPTIONS } from './executor.service';
import { PendingWork } from './pending-work';

/** The lease in `cluster_locks` that makes one executor of the cluster the coordinator. */
export const LIVENESS_COORDINATOR_LOCK = 'liveness-coordinator';

export interface LivenessCoordinatorSettings {
  readonly timings: LivenessTimings;
  /** How often the coordinator renews its lease and checks the instances. */
  readonly passIntervalMs: number;
  /** How long a lease lasts without renewal: another executor takes over this long after the holder stopped. */
  readonly leaseTtlMs: number;
  /** Orphaned jobs handled per pass; the rest wait for the next one. */
  readonly jobsPerPass: number;
}

export const DEFAULT_LIVENESS_COORDINATOR_SETTINGS: LivenessCoordinatorSettings = {
  timings: DEFAULT_LIVENESS_TIMINGS,
  passIntervalMs: 2_000,
  leaseTtlMs: 10_000,
  jobsPerPass: 500,
};

export const LIVENESS_COORDINATOR_SETTINGS = Symbol('lanner.liveness-coordinator-settings');

/**
 * The settings a role's config sets: how long ended service-instance rows stay
 * (LANNER_SERVICE_INSTANCE_RETENTION_S, executor and standalone); none without a config.
 */
export function livenessSettingsFromConfig(config: unknown): Partial<LivenessCoordinatorSettings> {
  if (config === null || typeof config !== 'object') return {};
  const retentionS = (config as { serviceInstanceRetentionS?: unknown }).serviceInstanceRetentionS;
  if (typeof retentionS !== 'number') return {};
  return { timings: { ...DEFAULT_LIVENESS_TIMINGS, purgeAfterMs: retentionS * 1000 } };
}

/** A relayed-end mark (a result, or a lost report) whose attempt the executor never recorded as ended goes after this long. */
const RESULT_MARK_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** States of a process that should be heartbeating. */
const ALIVE_STATES: readonly ServiceInstanceRecordState[] = ['CREATED', 'RUNNING', 'MAINTENANCE', 'TERMINATING'];
const ENDED_STATES: readonly ServiceInstanceRecordState[] = ['NOT_RUNNING', 'TERMINATED'];

/** What one pass did (for specs and the log). */
export interface LivenessPass {
  readonly leader: boolean;
  readonly disconnected: readonly string[];
  readonly notRunning: readonly string[];
  /** `taskRunId:attempt` of each job reported lost. */
  readonly requeued: readonly string[];
  readonly purgedInstances: number;
  readonly purgedWorkers: number;
  /** Executions held during maintenance mode and announced again after it ended. */
  readonly releasedExecutions: number;
  /** The lease was lost during the pass: it stopped before its next action. */
  readonly deposed?: boolean;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The lease must still have this long to run (at most a quarter of its length) when an action starts. */
const LEASE_SAFETY_MARGIN_MS = 2_000;

const NOT_LEADER: LivenessPass = {
  leader: false,
  disconnected: [],
  notRunning: [],
  requeued: [],
  purgedInstances: 0,
  purgedWorkers: 0,
  releasedExecutions: 0,
};

function correlationIdOf(job: unknown): string | undefined {
  if (job === null || typeof job !== 'object') return undefined;
  const correlationId = (job as { correlationId?: unknown }).correlationId;
  return typeof correlationId === 'string' && correlationId !== '' ? correlationId : undefined;
}

/**
 * The cluster liveness coordinator (ARCHITECTURE.md "Liveness"). Every executor
 * runs one; the one holding the `liveness-coordinator` lease acts, every pass:
 * instances silent past the missed-heartbeat timeout become DISCONNECTED, and
 * NOT_RUNNING after the grace period; every running job recorded by a
 * controller instance that is gone is reported `task-run.worker-lost` on
 * `lanner.executor` (so the state machine re-queues or retries it, as when a
 * controller sees a worker go) and its row removed; stale worker registry rows,
 * ended instances older than the retention (LANNER_SERVICE_INSTANCE_RETENTION_S)
 * and the relayed-end marks of attempts already recorded as ended are purged;
 * once maintenance mode ended, the executions held during it are announced
 * again (once: the stored maintenance row records it).
 *
 * No split brain: before each action the pass reads the lease again (at the
 * pass's time plus the time it has taken, so a pause of this process counts)
 * and stands down at once when another executor took it or it is about to
 * expire. Silent instances are judged only over a stretch this coordinator
 * watched itself with working database access (after its own outage or pause
 * everyone's beats are missing for the same reason), so an outage of the
 * database never makes the cluster declare its live processes dead.
 *
 * Idempotent: a job is reported only by the pass whose conditional delete
 * claimed its row (a job adopted by another controller meanwhile is left
 * alone), the report's message id is `taskRunId:attempt`, and the state machine
 * ignores it once the attempt moved on. A database or queue that is down is
 * logged and the pass tried again later.
 */
@Injectable()
export class LivenessCoordinator implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(LivenessCoordinator.name);
  private readonly settings: LivenessCoordinatorSettings;
  /** The lease holder: this executor's service instance id. */
  readonly holder: string;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private leader = false;
  private failing = false;
  private lastGoodPassAt: Date | undefined;
  private watchingSince: Date | undefined;
  private readonly transitions: Counter<'state'> | undefined;
  private readonly requeuedJobs: Counter | undefined;
  private readonly pendingWork: PendingWork;

  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(EXECUTOR_OPTIONS) private readonly options: ExecutorOptions,
    @Optional() identity?: ServiceInstanceIdentity,
    @Optional() @Inject(LIVENESS_COORDINATOR_SETTINGS) settings?: Partial<LivenessCoordinatorSettings>,
    @Optional() metrics?: MetricsRegistry,
  ) {
    this.settings = { ...DEFAULT_LIVENESS_COORDINATOR_SETTINGS, ...settings };
    this.holder = identity?.id ?? `executor-${randomUUID()}`;
    this.pendingWork = new PendingWork(repositories, queue, options.topics.executor);
    this.transitions = metrics?.counter({
      name: 'lanner_liveness_instance_transitions_total',
      help: 'Service instances the liveness coordinator moved, by the state they entered',
      labelNames: ['state'],
    });
    this.requeuedJobs = metrics?.counter({
      name: 'lanner_liveness_jobs_requeued_total',
      help: 'Running jobs of gone controllers reported lost (and so re-queued) by the liveness coordinator',
    });
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      // Passes never overlap: a slow one delays the next.
      this.running = this.running.then(() => this.pass());
    }, this.settings.passIntervalMs);
    this.timer.unref();
  }

  get isLeader(): boolean {
    return this.leader;
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
    if (!this.leader) return;
    this.leader = false;
    // Hand over at once instead of after the lease expires.
    await this.repositories.clusterLocks.release(LIVENESS_COORDINATOR_LOCK, this.holder).catch(() => undefined);
  }

  /** One pass: renews (or takes) the lease and, when held, does the work. Never throws. */
  async pass(now: Date = new Date()): Promise<LivenessPass> {
    try {
      const result = await this.leadAndWork(now);
      if (this.failing) this.logger.log('liveness coordinator working again');
      this.failing = false;
      return result;
    } catch (error) {
      if (!this.failing) {
        // Repository and queue errors name what failed, never SQL or a secret.
        this.logger.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          'liveness pass failed; trying again on the next one',
        );
      }
      this.failing = true;
      this.watchingSince = undefined;
      return NOT_LEADER;
    }
  }

  private async leadAndWork(now: Date): Promise<LivenessPass> {
    const startedAt = Date.now();
    const held = await this.repositories.clusterLocks.tryAcquire(
      LIVENESS_COORDINATOR_LOCK,
      this.holder,
      this.settings.leaseTtlMs,
      now,
    );
    // The time the answer came: a lease write that hung (a database coming back) shows as a gap.
    const answeredAt = new Date(now.getTime() + (Date.now() - startedAt));
    // Silent instances are judged only over a stretch this coordinator itself watched with working
    // database access: after its own outage or pause, everyone's beats are missing for the same reason.
    const watchingSince = this.observed(now, answeredAt);
    this.noteLeadership(held);
    if (!held) return NOT_LEADER;
    const done: Mutable<LivenessPass> = { ...NOT_LEADER, leader: true };
    /** Before each action: the lease is still ours (it may have been taken while this process was paused). */
    const stillLeading = () => this.keepsLease(now, startedAt, done);

    const { missedHeartbeatTimeoutMs, disconnectedGraceMs, purgeAfterMs } = this.settings.timings;
    const instances = this.repositories.serviceInstances;
    const silentBefore = new Date(now.getTime() - missedHeartbeatTimeoutMs);
    const graceStartedBefore = new Date(now.getTime() - disconnectedGraceMs);
    const judges = watchingSince.getTime() <= silentBefore.getTime();

    if (judges) {
      if (!(await stillLeading())) return done;
      const disconnected = await instances.transitionSilent(ALIVE_STATES, 'DISCONNECTED', silentBefore, now);
      done.disconnected = disconnected.map((instance) => instance.id);
      for (const instance of disconnected) {
        this.logger.warn(
          { instanceId: instance.id, role: instance.role, lastHeartbeatAt: instance.heartbeatAt.toISOString() },
          'service instance disconnected: missed heartbeats',
        );
      }
      if (disconnected.length > 0) this.transitions?.inc({ state: 'DISCONNECTED' }, disconnected.length);

      if (!(await stillLeading())) return done;
      const notRunning = await instances.transitionSilent(['DISCONNECTED'], 'NOT_RUNNING', silentBefore, now, graceStartedBefore);
      done.notRunning = notRunning.map((instance) => instance.id);
      if (notRunning.length > 0) this.transitions?.inc({ state: 'NOT_RUNNING' }, notRunning.length);
      for (const instance of notRunning) {
        this.logger.warn(
          { instanceId: instance.id, role: instance.role, lastHeartbeatAt: instance.heartbeatAt.toISOString() },
          'service instance not running: grace period over',
        );
        if (!(await stillLeading())) return done;
        // Its workers' rows would stop counting on their own; removing them makes the fleet view right at once.
        await this.repositories.connectedWorkers.removeController(instance.id);
      }
    }

    if (!(await stillLeading())) return done;
    done.requeued = await this.requeueOrphans(graceStartedBefore);
    if (done.requeued.length > 0) this.requeuedJobs?.inc(done.requeued.length);

    if (!(await stillLeading())) return done;
    done.purgedWorkers = await this.repositories.connectedWorkers.purgeStale(new Date(now.getTime() - CONNECTED_WORKER_STALE_MS));
    if (!(await stillLeading())) return done;
    done.purgedInstances = await instances.purge(ENDED_STATES, new Date(now.getTime() - purgeAfterMs));
    if (done.purgedWorkers > 0 || done.purgedInstances > 0)
      this.logger.log({ purgedWorkers: done.purgedWorkers, purgedInstances: done.purgedInstances }, 'stale liveness rows purged');
    if (!(await stillLeading())) return done;
    // Marks of relayed ends (results, lost reports) the executor has recorded, or that outlived any redelivery: no longer needed.
    await this.repositories.runningJobs.dropSettledResultMarks(new Date(now.getTime() - RESULT_MARK_MAX_AGE_MS));
    if (!(await stillLeading())) return done;
    done.releasedExecutions = await this.releaseHeldExecutions(now);
    return done;
  }

  /**
   * Maintenance mode ended: the executions created while executors held new
   * ones (still CREATED, no state) are announced again, then the row records
   * it, so the next pass does not. A pass that fails midway announces again,
   * which a started execution ignores.
   */
  private async releaseHeldExecutions(now: Date): Promise<number> {
    const maintenance = await this.repositories.maintenance.get();
    if (!heldExecutionsAwaitRelease(maintenance) || maintenance.exitedAt === null) return 0;
    const released = await this.pendingWork.announceUnstarted();
    await this.repositories.maintenance.markReleased(maintenance.exitedAt, now);
    this.logger.log({ released, exitedAt: maintenance.exitedAt.toISOString() }, 'maintenance over: held executions released');
    return released;
  }

  private noteLeadership(held: boolean): void {
    if (held === this.leader) return;
    this.logger.log(
      { holder: this.holder },
      held ? 'this executor is the liveness coordinator' : 'this executor is no longer the liveness coordinator',
    );
    this.leader = held;
  }

  /**
   * Records a pass whose database access worked (at the time its lease write
   * answered) and returns since when this coordinator has watched without a
   * gap: an answer that comes more than the missed-heartbeat timeout after the
   * previous good one (the process was paused, its passes failed, or the
   * write hung while the database was away) starts watching anew.
   */
  private observed(now: Date, answeredAt: Date): Date {
    const timeoutMs = this.settings.timings.missedHeartbeatTimeoutMs;
    // The lease write took long: the database was away until it answered.
    const late = answeredAt.getTime() - now.getTime() > timeoutMs / 2;
    const previous = this.lastGoodPassAt;
    if (
      late ||
      this.watchingSince === undefined ||
      previous === undefined ||
      answeredAt.getTime() - previous.getTime() > timeoutMs
    )
      this.watchingSince = late ? answeredAt : now;
    this.lastGoodPassAt = answeredAt;
    return this.watchingSince;
  }

  /**
   * True while this executor still holds the lease with time to spare, read
   * from the store at the pass's time plus the time the pass has taken so
   * far (a pause of this process counts). Otherwise it stands down: the pass
   * stops before its next action, and says so.
   */
  private async keepsLease(now: Date, startedAt: number, done: Mutable<LivenessPass>): Promise<boolean> {
    const lease = await this.repositories.clusterLocks.get(LIVENESS_COORDINATOR_LOCK);
    const current = now.getTime() + (Date.now() - startedAt);
    const margin = Math.min(LEASE_SAFETY_MARGIN_MS, this.settings.leaseTtlMs / 4);
    if (lease !== null && lease.holder === this.holder && lease.expiresAt.getTime() - current > margin) return true;
    this.logger.warn(
      { holder: this.holder, leaseHolder: lease?.holder ?? null, leaseExpiresAt: lease?.expiresAt.toISOString() ?? null },
      'liveness coordinator lease lost during a pass (this process was paused or slow): standing down before its next action',
    );
    this.leader = false;
    this.watchingSince = undefined;
    done.leader = false;
    done.deposed = true;
    return false;
  }

  /**
   * Claims each job of a gone controller with a conditional delete (a worker that
   * re-attached to another controller meanwhile has re-pointed its row, so the
   * delete finds nothing and the job keeps running there), then reports the
   * claimed ones lost. When the report cannot be published the rows are put
   * back, so the next pass tries again.
   */
  private async requeueOrphans(terminatedBefore: Date): Promise<string[]> {
    const orphans = await this.repositories.runningJobs.listOrphaned(terminatedBefore, this.settings.jobsPerPass);
    const claimed: RunningJobRecord[] = [];
    for (const job of orphans) {
      const holder = { workerId: job.workerId, controllerInstanceId: job.controllerInstanceId };
      if (await this.repositories.runningJobs.removeLostIfHeldBy(job.taskRunId, job.attempt, holder)) claimed.push(job);
    }
    if (claimed.length === 0) return [];
    // A polling trigger's poll has no execution to tell: its scheduler polls again once its lease on the trigger ends.
    const taskJobs = claimed.filter((job) => !isTriggerEvaluation(job.job));
    try {
      if (taskJobs.length > 0) {
        const messages: EncodedQueueMessage[] = [];
        for (const job of taskJobs) messages.push(this.lostMessage(job, await this.restartStrategyOf(job.workerId)));
        await this.queue.publish(this.options.topics.executor, messages);
      }
    } catch (error) {
      for (const job of claimed) await this.repositories.runningJobs.restoreUnreported(job).catch(() => undefined);
      throw error;
    }
    for (const job of claimed) {
      this.logger.warn(
        {
          executionId: job.executionId,
          taskRunId: job.taskRunId,
          attempt: job.attempt,
          workerId: job.workerId,
          controllerInstanceId: job.controllerInstanceId,
        },
        'running job of a gone controller reported lost',
      );
    }
    return claimed.map((job) => jobMessageId(job.taskRunId, job.attempt));
  }

  /** The restart strategy of the lost job's worker's group (NEVER: the task run fails instead of running again). */
  private async restartStrategyOf(workerId: string): Promise<WorkerRestartStrategy> {
    try {
      return await this.repositories.workerGroups.restartStrategyOfWorker(workerId);
    } catch (error) {
      this.logger.warn(
        {
          workerId,
          reason: error instanceof Error ? error.message : String(error),
          restartStrategy: DEFAULT_WORKER_RESTART_STRATEGY,
        },
        "cannot read the restart strategy of a lost job's worker group; the default applies",
      );
      return DEFAULT_WORKER_RESTART_STRATEGY;
    }
  }

  private lostMessage(job: RunningJobRecord, restartStrategy: WorkerRestartStrategy): EncodedQueueMessage {
    const correlationId = correlationIdOf(job.job);
    return encodeQueueMessage(executorEventCodec, {
      schemaVersion: QUEUE_SCHEMA_VERSIONS['task-run.worker-lost'],
      messageId: jobMessageId(job.taskRunId, job.attempt),
      type: 'task-run.worker-lost',
      occurredAt: new Date().toISOString(),
      ...(correlationId === undefined ? {} : { correlationId }),
      payload: {
        tenantId: job.tenantId,
        executionId: job.executionId,
        taskRunId: job.taskRunId,
        attempt: job.attempt,
        workerId: job.workerId,
        reason: `the controller holding the job (${job.controllerInstanceId}) stopped`,
        restartStrategy,
      },
    });
  }
}

/** Whether a running job's stored message is a trigger evaluation (a polling trigger's poll), not a task run's job. */
function isTriggerEvaluation(job: unknown): boolean {
  if (job === null || typeof job !== 'object') return false;
  const payload = (job as { payload?: unknown }).payload;
  return (
    payload !== null && typeof payload === 'object' && (payload as { triggerEvaluation?: unknown }).triggerEvaluation === true
  );
}
