import { setMaxListeners } from 'node:events';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { CapacitySubscription } from '@lanner/capacity';
import {
  ControllerFrame,
  decodeQueueMessage,
  DEFAULT_TOPIC_PARTITIONS,
  durationFromMillis,
  MAX_FRAME_BYTES,
  NewerSchemaVersionError,
  resubmittedJobsTopic,
  workerJobCodec,
  workerJobsTopic,
  type Job,
  type WorkerJobMessage,
} from '@lanner/frames';
import { describeUnstorableText, findUnstorableText, type StoredJson } from '@lanner/model';
import {
  SubscribeAborted,
  UnknownTopicError,
  type QueueMessage,
  type QueuePort,
  type QueueSubscription,
  type SubscribeOptions,
} from '@lanner/queue';
import type { Repositories } from '@lanner/repository';
import { parkPoisonMessages } from '@lanner/dead-letters';
import { MaintenanceMode, QUEUE, REPOSITORIES } from '@lanner/runtime';
import { CLOCK, type Clock } from './clock';
import { ControllerIdentity } from './controller-settings';
import { ControllerMetrics } from './controller-metrics';
import { FrameRelay } from './frame-relay';
import { KilledJobs } from './killed-jobs';
import { DispatchAbandoned, SlotArbiter, type Placement } from './slot-arbiter';
import { WorkerFleet, type WorkerSession } from './worker-fleet';

const SUBSCRIBE_RETRY_MS = 5_000;
export const dispatchGroupId = (queueId: string): string => `lanner-controller-${queueId}`;
/** The consumer group of a worker queue's re-queued jobs (`lanner.resubmitted-jobs.<queue>`). */
export const resubmittedDispatchGroupId = (queueId: string): string => `lanner-controller-${queueId}-resubmitted`;

/**
 * Jobs of one worker queue handled at the same time by this controller: every
 * partition of the topic side by side, several jobs of each (different task
 * runs; a redelivery of the same one waits its turn). Each still has its
 * running-job row written before its frame leaves and its offset committed
 * after; offsets are committed in order, so a crash redelivers, never skips.
 */
const DISPATCH_CONCURRENCY = { partitionsConsumedConcurrently: DEFAULT_TOPIC_PARTITIONS, messagesPerPartition: 4 } as const;

/**
 * How long the commit of a dispatched job's offset may wait, merged with the
 * others of the queue's consumer into one request, so the consumer fetches
 * again at once instead of after a commit round trip per job. A crash or a
 * rebalance may then deliver again the jobs of that last second, which the
 * running-job store recognises as it does any redelivery (still held, its
 * result relayed, or its attempt ended).
 */
const DISPATCH_COMMIT_INTERVAL_MS = 1_000;

/** What the Kafka adapter reads beyond the port's options (others ignore it). */
type DispatchSubscribeOptions = SubscribeOptions & { commitIntervalMs: number };

/** The consumer of one worker queue's topic, alive while at least one connected worker serves the queue. */
class QueueDispatch {
  retained = 0;
  subscription: QueueSubscription | undefined;
  /** Subscribing and closing run one after the other, so a worker leaving and one arriving cannot interleave them. */
  lifecycle: Promise<void> = Promise.resolve();

  constructor(
    readonly queueId: string,
    readonly topic: string,
    /** The queue's re-queued jobs: never paused (they are few), and placed ahead of the queue's new work. */
    readonly resubmittedTopic: string,
  ) {}
}

type RecordOutcome = 'recorded' | 'held-elsewhere' | 'ended';

/**
 * Takes jobs from `lanner.worker-jobs.<queue>` only when a connected worker
 * has credit AND a slot of its capacity ledger for them (the topic is paused
 * otherwise, so a saturated fleet shows as lag), records each in the
 * running-job store BEFORE its Job frame leaves, and lets the handler resolve
 * (commit) only then. Which waiting queue gets a freed slot is the
 * DispatchPolicy's call (SlotArbiter).
 */
@Injectable()
export class JobDispatch {
  private readonly logger = new Logger(JobDispatch.name);
  private readonly queues = new Map<string, QueueDispatch>();
  private readonly stopping = new AbortController();
  private readonly arbiter: SlotArbiter;

  constructor(
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    private readonly fleet: WorkerFleet,
    private readonly identity: ControllerIdentity,
    private readonly relay: FrameRelay,
    private readonly killedJobs: KilledJobs,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() private readonly metrics?: ControllerMetrics,
    @Optional() maintenance?: MaintenanceMode,
  ) {
    // Every queue's two consumers (and their subscribe retries) listen to it: one per queue served, not a leak.
    setMaxListeners(0, this.stopping.signal);
    this.arbiter = new SlotArbiter(fleet);
    this.arbiter.onSettled(() => this.applyFlowAll());
    if (maintenance !== undefined) {
      // Maintenance mode: workers finish what they hold and get nothing new; jobs wait on their topics until it ends.
      // Until the stored state was read (a restart during maintenance) nothing is sent either.
      this.arbiter.hold(maintenance.holdsWork);
      maintenance.onChange(() => this.arbiter.hold(maintenance.holdsWork));
    }
  }

  /** Whether dispatch is held (maintenance mode, or its state not known yet). */
  get held(): boolean {
    return this.arbiter.holding;
  }

  /** A worker's session is ready: it joins the fleet and the topics of its queues are consumed. */
  workerJoined(session: WorkerSession): void {
    this.fleet.add(session);
    for (const queueId of session.queueIds) this.retain(queueId);
    this.arbiter.pump();
  }

  /** A worker's stream ended: its slots free, and a queue no worker here serves any more is no longer consumed. */
  workerLeft(session: WorkerSession): void {
    session.closed = true;
    this.fleet.remove(session);
    for (const queueId of session.queueIds) this.release(queueId);
    this.arbiter.pump();
  }

  /**
   * The group's subscriptions changed (broadcast): every worker of the group
   * here gets the new ledger layout at once; running jobs keep their slots.
   * Queues gained are consumed, queues lost stop being consumed when no
   * worker here serves them. An invalid list changes nothing (logged).
   */
  subscriptionsChanged(workerGroupId: string, subscriptions: readonly CapacitySubscription[]): void {
    for (const session of this.fleet.byGroup(workerGroupId)) {
      let change: { added: string[]; removed: string[] };
      try {
        change = session.reconfigure(subscriptions);
      } catch (error) {
        this.logger.warn(
          { workerId: session.workerId, workerGroupId, problem: error instanceof Error ? error.message : String(error) },
          'subscription change not applied to the worker',
        );
        continue;
      }
      if (session.closed) continue;
      for (const queueId of change.added) this.retain(queueId);
      for (const queueId of change.removed) this.release(queueId);
    }
    this.logger.log(
      { workerGroupId, queues: subscriptions.map((subscription) => subscription.workerQueueId) },
      'worker group subscriptions applied',
    );
    this.arbiter.pump();
  }

  /** A worker's credit or draining changed: place waiting jobs, pause or resume topics. */
  creditChanged(): void {
    this.arbiter.pump();
  }

  /** A job result was recorded (metrics). */
  jobCompleted(workerGroupId: string, queueId: string, state: string): void {
    this.metrics?.jobCompleted(workerGroupId, queueId, state);
  }

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
      this.arbiter.abandon(queueId);
      dispatch.lifecycle = dispatch.lifecycle.then(() => this.closeSubscription(dispatch));
    }
  }

  /**
   * Shutdown, quick even with a backlog: nothing more is fetched (each topic
   * paused), the handlers waiting for a slot give their jobs up uncommitted
   * (the group's next consumer takes them), then the consumers close, which
   * waits only for handlers already placing a job. Streams close after this.
   */
  async close(): Promise<void> {
    this.stopping.abort();
    for (const dispatch of this.queues.values()) {
      const subscription = dispatch.subscription;
      if (subscription && !subscription.isPaused(dispatch.topic)) subscription.pause(dispatch.topic);
      // The consumer starts closing before its waiting handlers are given up on, so their jobs go back quietly.
      void subscription?.close().catch(() => undefined);
      this.arbiter.abandon(dispatch.queueId);
      dispatch.lifecycle = dispatch.lifecycle.then(() => this.closeSubscription(dispatch));
    }
    await Promise.all([...this.queues.values()].map((dispatch) => dispatch.lifecycle));
  }

  private dispatchOf(queueId: string): QueueDispatch {
    let dispatch = this.queues.get(queueId);
    if (!dispatch) {
      dispatch = new QueueDispatch(queueId, workerJobsTopic(queueId), resubmittedJobsTopic(queueId));
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
        // Shutdown closed the consumers while they were still starting (their handlers gave their jobs up quietly).
        if (error instanceof SubscribeAborted || this.stopping.signal.aborted) return;
        this.logger.warn(
          {
            queue: dispatch.queueId,
            error: error instanceof Error ? error.message : String(error),
            retryInMs: SUBSCRIBE_RETRY_MS,
          },
          'cannot consume the worker queue yet; will retry',
        );
        await sleep(SUBSCRIBE_RETRY_MS, this.stopping.signal);
      }
    }
  }

  /**
   * Two consumers: the queue's new work (paused while no slot admits more) and
   * its re-queued jobs, in a group of their own, so that they are fetched even
   * while the first consumer's handlers all wait for a slot (a consumer fetches
   * again only once its batch is handled). Pausing and resuming apply to the
   * new work only; closing closes both.
   */
  private async subscribe(dispatch: QueueDispatch): Promise<QueueSubscription> {
    const work = await this.subscribeTo(dispatch, dispatch.topic, dispatchGroupId(dispatch.queueId));
    let resubmitted: QueueSubscription;
    try {
      resubmitted = await this.subscribeTo(dispatch, dispatch.resubmittedTopic, resubmittedDispatchGroupId(dispatch.queueId));
    } catch (error) {
      await work.close().catch(() => undefined);
      throw error;
    }
    return {
      pause: (topic) => work.pause(topic),
      resume: (topic) => work.resume(topic),
      isPaused: (topic) => work.isPaused(topic),
      close: async () => {
        await Promise.all([work.close(), resubmitted.close()]);
      },
    };
  }

  private async subscribeTo(dispatch: QueueDispatch, topic: string, groupId: string): Promise<QueueSubscription> {
    const options: DispatchSubscribeOptions = {
      groupId,
      topics: [topic],
      fromBeginning: true,
      handler: this.parkingPoison(dispatch, groupId),
      concurrency: DISPATCH_CONCURRENCY,
      commitIntervalMs: DISPATCH_COMMIT_INTERVAL_MS,
      // Shutdown closes the consumer even while it is still starting, when its handlers may already wait for a slot.
      signal: this.stopping.signal,
    };
    try {
      return await this.queue.subscribe(options);
    } catch (error) {
      if (!(error instanceof UnknownTopicError)) throw error;
      // The API creates a queue's topic with the queue; this covers a topic not made yet (or deleted).
      await this.queue.createTopics([{ topic, partitions: DEFAULT_TOPIC_PARTITIONS }]);
      return this.queue.subscribe(options);
    }
  }

  /**
   * The dispatch handler, with a job that fails the same way on every try (a value the running-job store
   * refuses) parked as a dead letter and its task run failed with the reason, so the jobs behind it on its
   * partition, of every tenant, are dispatched. A job given up on while stopping is never parked: it stays
   * for the group's next consumer.
   */
  private parkingPoison(dispatch: QueueDispatch, groupId: string): (message: QueueMessage) => Promise<void> {
    return parkPoisonMessages((message) => this.take(dispatch, message), {
      repositories: this.repositories,
      groupId,
      logger: this.logger,
      alsoPassing: (error) => error instanceof DispatchAbandoned,
      afterParking: async (message, reason) => {
        const job = decodeQueueMessage(workerJobCodec, message.value);
        await this.relay.jobRefused(job, `the job could not be dispatched and was parked as a dead letter: ${reason}`);
      },
    });
  }

  private async closeSubscription(dispatch: QueueDispatch): Promise<void> {
    const subscription = dispatch.subscription;
    if (!subscription || (dispatch.retained > 0 && !this.stopping.signal.aborted)) return;
    dispatch.subscription = undefined;
    try {
      await subscription.close();
      this.logger.log({ queue: dispatch.queueId }, 'stopped dispatching from worker queue: no worker serves it here');
    } catch (error) {
      this.logger.warn(
        { queue: dispatch.queueId, error: error instanceof Error ? error.message : String(error) },
        'worker queue consumer did not close cleanly',
      );
    }
  }

  private applyFlowAll(): void {
    for (const dispatch of this.queues.values()) this.applyFlow(dispatch);
  }

  /** Fetch only what free slots admit: the topic flows while no job of it waits and some worker could take one. */
  private applyFlow(dispatch: QueueDispatch): void {
    const subscription = dispatch.subscription;
    if (!subscription) return;
    const admits = this.arbiter.admits(dispatch.queueId);
    if (admits && subscription.isPaused(dispatch.topic)) subscription.resume(dispatch.topic);
    else if (!admits && !subscription.isPaused(dispatch.topic)) subscription.pause(dispatch.topic);
  }

  /** The queue handler: resolves (commits) only once the job is recorded and sent, or can never be. */
  private async take(dispatch: QueueDispatch, message: QueueMessage): Promise<void> {
    const takenAt = performance.now();
    let job: WorkerJobMessage;
    try {
      job = decodeQueueMessage(workerJobCodec, message.value);
    } catch (error) {
      // Left uncommitted until this controller is upgraded (docs/modules/frames.md).
      if (error instanceof NewerSchemaVersionError) throw error;
      this.logger.error(
        {
          queue: dispatch.queueId,
          partition: message.partition,
          offset: message.offset,
          problem: error instanceof Error ? error.message : String(error),
        },
        'invalid job message dropped',
      );
      return;
    }
    // A killed task run's job, or one past its deadline, is worth no slot: its outcome is reported and it is committed unsent.
    if (await this.killedJobs.dropIfEnded(job, dispatch.queueId)) return;
    // Text the running-job store cannot hold would fail its insert, and with it every job batched beside it, on every retry.
    const unstorable = findUnstorableText(job.payload.taskDefinition);
    if (unstorable !== undefined) {
      this.logger.warn(
        { taskRunId: job.payload.taskRunId, attempt: job.payload.attempt, path: unstorable.path },
        'job holds text that cannot be stored: failing it',
      );
      await this.relay.jobRefused(
        job,
        `the task's rendered ${describeUnstorableText(unstorable, 'property')}, which Lanner cannot store`,
      );
      return;
    }

    const jobFrame = jobFrameOf(job);
    const frame: ControllerFrame = { frame: { $case: 'job', value: jobFrame } };
    // Encoding is only needed to measure a frame that may be near the limit; gRPC encodes it again to send it.
    const frameBytes = frameBytesAtMost(jobFrame) <= MAX_FRAME_BYTES ? 0 : ControllerFrame.encode(frame).finish().length;
    if (frameBytes > MAX_FRAME_BYTES) {
      this.logger.warn(
        { taskRunId: job.payload.taskRunId, attempt: job.payload.attempt, frameBytes },
        'job too large for a worker stream: failing it',
      );
      await this.relay.jobRefused(
        job,
        `the task's rendered definition takes ${frameBytes} bytes, more than the ${MAX_FRAME_BYTES}-byte limit of a job frame; ` +
          'pass large values through internal storage (lanner:// URIs) instead of inlining them',
      );
      return;
    }

    for (;;) {
      if (dispatch.retained === 0 || this.stopping.signal.aborted) throw new DispatchAbandoned(dispatch.queueId);
      // Credit and slot are taken synchronously inside the arbiter, before any await of this handler.
      // A re-queued job (its worker was lost) goes ahead of the queue's new work waiting here.
      const placement: Placement = await this.arbiter.place(dispatch.queueId, message.topic === dispatch.resubmittedTopic);
      const worker = placement.session;
      let recorded: RecordOutcome;
      try {
        recorded = await this.record(job, worker);
      } catch (error) {
        this.arbiter.giveBack(placement);
        throw error;
      }
      if (recorded !== 'recorded') {
        this.arbiter.giveBack(placement);
        this.logger.log(
          { taskRunId: job.payload.taskRunId, attempt: job.payload.attempt },
          recorded === 'ended'
            ? 'job of an attempt that already ended: not sent'
            : 'redelivered job already held by a live worker: not sent again',
        );
        return;
      }
      if (worker.closed) {
        // The worker left while the job was being recorded: its disconnect did not see this job, so undo and pick another.
        worker.ledger.release(placement.lease);
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
        ...(job.payload.triggerEvaluation === true ? { triggerEvaluation: true } : {}),
        started: false,
        lease: placement.lease,
      });
      worker.send(frame);
      this.metrics?.jobDispatched(worker.workerGroupId, dispatch.queueId, takenAt, job.occurredAt);
      this.logger.log(
        {
          taskRunId: job.payload.taskRunId,
          attempt: job.payload.attempt,
          executionId: job.payload.executionId,
          workerId: worker.workerId,
          queue: dispatch.queueId,
        },
        'job sent to worker',
      );
      return;
    }
  }

  /**
   * Records the job in the running-job store for this worker. A duplicate
   * (task run + attempt already recorded) is a redelivery: it is sent again
   * only when the worker holding it was this controller's and is gone. A job
   * whose end a controller has relayed (its result, or a lost report), or whose attempt the executor has
   * recorded as ended (a late redelivery after its row went, or a job that
   * waited on its topic past its end), is refused by the store and never sent.
   */
  private async record(job: WorkerJobMessage, worker: WorkerSession): Promise<RecordOutcome> {
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
      dispatchedAt: this.clock.now(),
    };
    if (await store.insert(row)) return 'recorded';
    const existing = await store.get(payload.taskRunId, payload.attempt);
    if (existing === null) {
      // Its end was relayed (its result, or a lost report), or the executor ended the attempt (a result, or a lost report that put
      // the job back as a new attempt), or its result came between the two queries: the redelivery is stale.
      return 'ended';
    }
    if (existing.controllerInstanceId === this.identity.id && !this.fleet.isConnected(existing.workerId)) {
      // Taken over in one conditional UPDATE, only while that gone worker still holds the row here. A lost
      // report of the row deletes it only while the same holds (removeLostIfHeldBy), so of the two, exactly one
      // wins: the job is either sent again or reported lost, never both.
      const from = { workerId: existing.workerId, controllerInstanceId: this.identity.id };
      const takenOver = await store.reassign(payload.taskRunId, payload.attempt, from, {
        workerId: worker.workerId,
        controllerInstanceId: this.identity.id,
      });
      return takenOver ? 'recorded' : 'held-elsewhere';
    }
    // Held by a live worker here, or by another controller (which, or the liveness coordinator, answers for it).
    return 'held-elsewhere';
  }
}

/**
 * An upper bound of the encoded Job frame: its strings' UTF-8 bytes plus a
 * generous allowance for tags, lengths, numbers and the two timestamps.
 */
function frameBytesAtMost(job: Job): number {
  let bytes = 256;
  for (const value of Object.values(job)) if (typeof value === 'string') bytes += Buffer.byteLength(value, 'utf8') + 8;
  return bytes;
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
