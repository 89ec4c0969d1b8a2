import { randomUUID } from 'node:crypto';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import {
  encodeQueueMessage,
  executorEventCodec,
  jobMessageId,
  QUEUE_SCHEMA_VERSIONS,
  type EncodedQueueMessage,
} from '@lanner/frames';
import type { RunningJobRecord, ServiceInstanceRecordState } from '@lanner/model';
import type { QueuePort } from '@lanner/queue';
import { CONNECTED_WORKER_STALE_MS, type Repositories } from '@lanner/repository';
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
}

const NOT_LEADER: LivenessPass = {
  leader: false,
  disconnected: [],
  notRunning: [],
  requeued: [],
  purgedInstances: 0,
  purgedWorkers: 0,
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
 * day-old ended instances and the relayed-end marks of attempts already
 * recorded as ended are purged.
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
  private readonly transitions: Counter<'state'> | undefined;
  private readonly requeuedJobs: Counter | undefined;

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
      return NOT_LEADER;
    }
  }

  private async leadAndWork(now: Date): Promise<LivenessPass> {
    const held = await this.repositories.clusterLocks.tryAcquire(
      LIVENESS_COORDINATOR_LOCK,
      this.holder,
      this.settings.leaseTtlMs,
      now,
    );
    if (held !== this.leader) {
      this.logger.log(
        { holder: this.holder },
        held ? 'this executor is the liveness coordinator' : 'this executor is no longer the liveness coordinator',
      );
      this.leader = held;
    }
    if (!held) return NOT_LEADER;

    const { missedHeartbeatTimeoutMs, disconnectedGraceMs, purgeAfterMs } = this.settings.timings;
    const instances = this.repositories.serviceInstances;
    const silentBefore = new Date(now.getTime() - missedHeartbeatTimeoutMs);
    const graceStartedBefore = new Date(now.getTime() - disconnectedGraceMs);

    const disconnected = await instances.transitionSilent(ALIVE_STATES, 'DISCONNECTED', silentBefore, now);
    for (const instance of disconnected) {
      this.logger.warn(
        { instanceId: instance.id, role: instance.role, lastHeartbeatAt: instance.heartbeatAt.toISOString() },
        'service instance disconnected: missed heartbeats',
      );
    }
    const notRunning = await instances.transitionSilent(['DISCONNECTED'], 'NOT_RUNNING', silentBefore, now, graceStartedBefore);
    for (const instance of notRunning) {
      this.logger.warn(
        { instanceId: instance.id, role: instance.role, lastHeartbeatAt: instance.heartbeatAt.toISOString() },
        'service instance not running: grace period over',
      );
      // Its workers' rows would stop counting on their own; removing them makes the fleet view right at once.
      await this.repositories.connectedWorkers.removeController(instance.id);
    }

    if (disconnected.length > 0) this.transitions?.inc({ state: 'DISCONNECTED' }, disconnected.length);
    if (notRunning.length > 0) this.transitions?.inc({ state: 'NOT_RUNNING' }, notRunning.length);

    const requeued = await this.requeueOrphans(graceStartedBefore);
    if (requeued.length > 0) this.requeuedJobs?.inc(requeued.length);
    const purgedWorkers = await this.repositories.connectedWorkers.purgeStale(
      new Date(now.getTime() - CONNECTED_WORKER_STALE_MS),
    );
    const purgedInstances = await instances.purge(ENDED_STATES, new Date(now.getTime() - purgeAfterMs));
    if (purgedWorkers > 0 || purgedInstances > 0)
      this.logger.log({ purgedWorkers, purgedInstances }, 'stale liveness rows purged');
    // Marks of relayed ends (results, lost reports) the executor has recorded, or that outlived any redelivery: no longer needed.
    await this.repositories.runningJobs.dropSettledResultMarks(new Date(now.getTime() - RESULT_MARK_MAX_AGE_MS));
    return {
      leader: true,
      disconnected: disconnected.map((instance) => instance.id),
      notRunning: notRunning.map((instance) => instance.id),
      requeued,
      purgedInstances,
      purgedWorkers,
    };
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
      if (taskJobs.length > 0)
        await this.queue.publish(
          this.options.topics.executor,
          taskJobs.map((job) => this.lostMessage(job)),
        );
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

  private lostMessage(job: RunningJobRecord): EncodedQueueMessage {
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
