import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  ControllerFrame,
  decodeQueueMessage,
  DEFAULT_TOPIC_PARTITIONS,
  durationFromMillis,
  MAX_FRAME_BYTES,
  NewerSchemaVersionError,
  workerJobCodec,
  workerJobsTopic,
  type Job,
  type WorkerJobMessage,
} from '@lanner/frames';
import type { StoredJson } from '@lanner/model';
import { UnknownTopicError, type QueueMessage, type QueuePort, type QueueSubscription } from '@lanner/queue';
import type { Repositories } from '@lanner/repository';
import { QUEUE, REPOSITORIES } from '@lanner/runtime';
import { ControllerIdentity } from './controller-settings';
import { FrameRelay } from './frame-relay';
import { WorkerFleet, type WorkerSession } from './worker-fleet';

/** Partitions of a worker-jobs topic this controller creates when it is missing (ARCHITECTURE.md: 3 by default). */
const SUBSCRIBE_RETRY_MS = 5_000;

/** A job handler waiting for credit was told to stop: the job stays uncommitted for the next member. */
class DispatchAbandoned extends Error {
  constructor(queueId: string) {
    super(`dispatch from worker queue '${queueId}' stopped (no worker left, or the controller is shutting down)`);
    this.name = 'DispatchAbandoned';
  }
}

interface Waiter {
  resolve(): void;
  reject(error: Error): void;
}

/** The consumer of one worker queue's topic, alive while at least one connected worker serves the queue. */
class QueueDispatch {
  retained = 0;
  subscription: QueueSubscription | undefined;
  /** Subscribing and closing run one after the other, so a worker leaving and one arriving cannot interleave them. */
  lifecycle: Promise<void> = Promise.resolve();
  waiters: Waiter[] = [];

  constructor(
    readonly queueId: string,
    readonly topic: string,
  ) {}

  wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter.resolve();
  }

  abandon(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter.reject(new DispatchAbandoned(this.queueId));
  }
}

type Placement = 'recorded' | 'held-elsewhere';

/**
 * Takes jobs from `lanner.worker-jobs.<queue>` only when a connected worker
 * has credit for them (the topic is paused otherwise, so a saturated fleet
 * shows as lag), records each in the running-job store BEFORE its Job frame
 * leaves, and lets the handler resolve (commit) only then.
 */
@Injectable()
export class JobDispatch {
  private readonly logger = new Logger(JobDispatch.name);
  private readonly queues = new Map<string, QueueDispatch>();
  private readonly stopping = new AbortController();

  constructor(
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    private readonly fleet: WorkerFleet,
    private readonly identity: ControllerIdentity,
    private readonly relay: FrameRelay,
  ) {}

  /** A worker serving the queue connected: consume its topic (from the beginning, so waiting jobs are served). */
  retain(queueId: string): void {
    const dispatch = this.dispatchOf(queueId);
    dispatch.retained += 1;
    if (dispatch.retained === 1) dispatch.lifecycle = dispatch.lifecycle.then(() => this.open(dispatch));
  }

  /** A worker serving the queue left: stop consuming when it was the last one. */
  release(queueId: string): void {
    const dispatch = this.queues.get(queueId);
    if (!dispatch || dispatch.retained === 0) return;
    dispatch.retained -= 1;
    if (dispatch.retained === 0) {
      dispatch.abandon();
      dispatch.lifecycle = dispatch.lifecycle.then(() => this.closeSubscription(dispatch));
    }
  }

  /** A worker's credit, draining or presence changed: wake waiting jobs, pause or resume topics. */
  creditChanged(): void {
    for (const dispatch of this.queues.values()) {
      if (this.fleet.pickFor(dispatch.queueId)) dispatch.wake();
      this.applyFlow(dispatch);
    }
  }

  async close(): Promise<void> {
    this.stopping.abort();
    for (const dispatch of this.queues.values()) {
      dispatch.abandon();
      dispatch.lifecycle = dispatch.lifecycle.then(() => this.closeSubscription(dispatch));
    }
    await Promise.all([...this.queues.values()].map((dispatch) => dispatch.lifecycle));
  }

  private dispatchOf(queueId: string): QueueDispatch {
    let dispatch = this.queues.get(queueId);
    if (!dispatch) {
      dispatch = new QueueDispatch(queueId, workerJobsTopic(queueId));
      this.queues.set(queueId, dispatch);
    }
    return dispatch;
  }

  private async open(dispatch: QueueDispatch): Promise<void> {
    while (dispatch.retained > 0 && !this.stopping.signal.aborted) {
      // Still subscribed: the last worker left and a new one arrived before the consumer closed.
      if (dispatch.subscription) return this.applyFlow(dispatch);
      try {
        dispatch.subscription = await this.subscribe(dispatch);
        this.logger.log({ queue: dispatch.queueId, topic: dispatch.topic }, 'dispatching from worker queue');
        this.applyFlow(dispatch);
        return;
      } catch (error) {
        this.logger.warn(
          { queue: dispatch.queueId, error: error instanceof Error ? error.message : String(error), retryInMs: SUBSCRIBE_RETRY_MS },
          'cannot consume the worker queue yet; will retry',
        );
        await sleep(SUBSCRIBE_RETRY_MS, this.stopping.signal);
      }
    }
  }

  private async subscribe(dispatch: QueueDispatch): Promise<QueueSubscription> {
    const options = {
      groupId: `lanner-controller-${dispatch.queueId}`,
      topics: [dispatch.topic],
      fromBeginning: true,
      handler: (message: QueueMessage) => this.take(dispatch, message),
    };
    try {
      return await this.queue.subscribe(options);
    } catch (error) {
      if (!(error instanceof UnknownTopicError)) throw error;
      // The API creates a queue's topic with the queue; this covers a topic not made yet (or deleted).
      await this.queue.createTopics([{ topic: dispatch.topic, partitions: DEFAULT_TOPIC_PARTITIONS }]);
      return this.queue.subscribe(options);
    }
  }

  private async closeSubscription(dispatch: QueueDispatch): Promise<void> {
    const subscription = dispatch.subscription;
    if (!subscription || (dispatch.retained > 0 && !this.stopping.signal.aborted)) return;
    dispatch.subscription = undefined;
    try {
      await subscription.close();
      this.logger.log({ queue: dispatch.queueId }, 'stopped dispatching from worker queue: no worker serves it here');
    } catch (error) {
      this.logger.warn({ queue: dispatch.queueId, error: error instanceof Error ? error.message : String(error) }, 'worker queue consumer did not close cleanly');
    }
  }

  private applyFlow(dispatch: QueueDispatch): void {
    const subscription = dispatch.subscription;
    if (!subscription) return;
    const hasCredit = this.fleet.pickFor(dispatch.queueId) !== undefined;
    if (hasCredit && subscription.isPaused(dispatch.topic)) subscription.resume(dispatch.topic);
    else if (!hasCredit && !subscription.isPaused(dispatch.topic)) subscription.pause(dispatch.topic);
  }

  /** The queue handler: resolves (commits) only once the job is recorded and sent, or can never be. */
  private async take(dispatch: QueueDispatch, message: QueueMessage): Promise<void> {
    let job: WorkerJobMessage;
    try {
      job = decodeQueueMessage(workerJobCodec, message.value);
    } catch (error) {
      // Left uncommitted until this controller is upgraded (frames README).
      if (error instanceof NewerSchemaVersionError) throw error;
      this.logger.error(
        { queue: dispatch.queueId, partition: message.partition, offset: message.offset, problem: error instanceof Error ? error.message : String(error) },
        'invalid job message dropped',
      );
      return;
    }

    const frame: ControllerFrame = { frame: { $case: 'job', value: jobFrameOf(job) } };
    const frameBytes = ControllerFrame.encode(frame).finish().length;
    if (frameBytes > MAX_FRAME_BYTES) {
      this.logger.warn({ taskRunId: job.payload.taskRunId, attempt: job.payload.attempt, frameBytes }, 'job too large for a worker stream: failing it');
      await this.relay.jobRefused(
        job,
        `the task's rendered definition takes ${frameBytes} bytes, more than the ${MAX_FRAME_BYTES}-byte limit of a job frame; ` +
          'pass large values through internal storage (lanner:// URIs) instead of inlining them',
      );
      return;
    }

    for (;;) {
      const worker = await this.waitForWorker(dispatch);
      // Taken before the first await, so two handlers never spend the same credit.
      worker.credit -= 1;
      let placement: Placement;
      try {
        placement = await this.record(job, worker);
      } catch (error) {
        worker.credit += 1;
        throw error;
      }
      if (placement === 'held-elsewhere') {
        worker.credit += 1;
        this.creditChanged();
        this.logger.log({ taskRunId: job.payload.taskRunId, attempt: job.payload.attempt }, 'redelivered job already held by a live worker: not sent again');
        return;
      }
      if (worker.closed) {
        // The worker left while the job was being recorded: its disconnect did not see this job, so undo and pick another.
        await this.repositories.runningJobs.remove(job.payload.taskRunId, job.payload.attempt);
        continue;
      }
      worker.hold({
        tenantId: job.payload.tenantId,
        executionId: job.payload.executionId,
        taskRunId: job.payload.taskRunId,
        attempt: job.payload.attempt,
        workerQueueId: job.payload.workerQueueId,
        correlationId: job.correlationId,
        started: false,
      });
      worker.send(frame);
      this.logger.log(
        { taskRunId: job.payload.taskRunId, attempt: job.payload.attempt, executionId: job.payload.executionId, workerId: worker.workerId, queue: dispatch.queueId },
        'job sent to worker',
      );
      this.applyFlow(dispatch);
      return;
    }
  }

  private async waitForWorker(dispatch: QueueDispatch): Promise<WorkerSession> {
    for (;;) {
      if (dispatch.retained === 0 || this.stopping.signal.aborted) throw new DispatchAbandoned(dispatch.queueId);
      const worker = this.fleet.pickFor(dispatch.queueId);
      if (worker) return worker;
      this.applyFlow(dispatch);
      await new Promise<void>((resolve, reject) => dispatch.waiters.push({ resolve, reject }));
    }
  }

  /**
   * Records the job in the running-job store for this worker. A duplicate
   * (task run + attempt already recorded) is a redelivery: it is sent again
   * only when the worker holding it was this controller's and is gone.
   */
  private async record(job: WorkerJobMessage, worker: WorkerSession): Promise<Placement> {
    const store = this.repositories.runningJobs;
    const { payload } = job;
    const row = {
      taskRunId: payload.taskRunId,
      attempt: payload.attempt,
      tenantId: payload.tenantId,
      executionId: payload.executionId,
      workerQueueId: payload.workerQueueId,
      workerId: worker.workerId,
      controllerInstanceId: this.identity.id,
      // The job exactly as taken from the queue (JSON by construction), so it can be put back unchanged.
      job: job as unknown as StoredJson,
      dispatchedAt: new Date(),
    };
    if (await store.insert(row)) return 'recorded';
    const existing = await store.get(payload.taskRunId, payload.attempt);
    if (existing === null) {
      // Its result was recorded between the two queries: the job is done, the redelivery is stale.
      return 'held-elsewhere';
    }
    if (existing.controllerInstanceId === this.identity.id && !this.fleet.isConnected(existing.workerId)) {
      await store.remove(payload.taskRunId, payload.attempt);
      return (await store.insert(row)) ? 'recorded' : 'held-elsewhere';
    }
    // Held by a live worker here, or by another controller (which, or the liveness coordinator, answers for it).
    return 'held-elsewhere';
  }
}

function jobFrameOf(job: WorkerJobMessage): Job {
  const { payload } = job;
  return {
    taskRunId: payload.taskRunId,
    attempt: payload.attempt,
    executionId: payload.executionId,
    queueId: payload.workerQueueId,
    taskType: payload.taskType,
    taskDefinitionJson: JSON.stringify(payload.taskDefinition),
    timeout: payload.timeoutMs !== undefined ? durationFromMillis(payload.timeoutMs) : undefined,
    deadline: payload.deadline !== undefined ? new Date(payload.deadline) : undefined,
    correlationId: job.correlationId ?? '',
    tenantId: payload.tenantId,
    namespace: payload.namespace,
    flowId: payload.flowId,
    taskId: payload.taskId,
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}
