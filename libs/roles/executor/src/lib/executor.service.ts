import { randomBytes } from 'node:crypto';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import {
  broadcastCodec,
  decodeQueueMessage,
  executorEventCodec,
  InvalidQueueMessageError,
  type BroadcastMessage,
  type ExecutorEvent,
} from '@lanner/frames';
import type { QueueMessage, QueuePort, QueueSubscription, SubscribeOptions } from '@lanner/queue';
import { NotFound, type ExecutorStateRecord, type Repositories } from '@lanner/repository';
import { parkPoisonMessages } from '@lanner/dead-letters';
import { QUEUE, REPOSITORIES } from '@lanner/runtime';
import { createInternalStorage } from '@lanner/storage';
import { SYSTEM_WORKER_QUEUE_ID } from '@lanner/model';
import { CrashGuard } from './crash-guard';
import { ExecutionProcessor } from './execution-processor';
import { systemWorkerGroupId, type ExecutorOptions } from './executor-options';
import { waitsForMaintenance } from './maintenance-hold';
import { PendingWork } from './pending-work';
import { NewerStoredState } from './stored-state';
import { SystemWorker } from './system-worker';
import { TimerLoop } from './timer-loop';

export const EXECUTOR_OPTIONS = Symbol('lanner.executor-options');

/** Between attempts to start while Kafka or PostgreSQL is not there yet. */
const START_RETRY_MS = 2000;

/**
 * How long the commit of a handled event's offset may wait, merged with the
 * member's others into one request, so the consumer takes the next event at
 * once instead of after a commit round trip per event. The event's effect is
 * stored before its offset is committed, as before; a crash or a rebalance may
 * now deliver again the events of that last stretch, and applying a stored
 * event again changes nothing (a started execution ignores its creation, the
 * state machine an event its task run is past), as it already had to for the
 * one event between a store and its commit.
 */
const EXECUTOR_COMMIT_INTERVAL_MS = 250;

/**
 * The most messages of one partition applied together (one produce, one group
 * write, one commit for all of them). Bounds the work a crash replays and how
 * long a batch holds its partition.
 */
const EXECUTOR_BATCH_MESSAGES = 200;

/** What the Kafka adapter reads beyond the port's options (the in-process queue has no commit requests to save). */
type ExecutorSubscribeOptions = SubscribeOptions & { commitIntervalMs: number };
/** A member that never commits (the Kafka adapter's option; the in-process queue has no commits). */
type FollowOptions = SubscribeOptions & { commitOffsets: false };

/**
 * The executor's edges: the `lanner.executor` consumer (decode, hand to the
 * processor; a message that can never be read is logged without its payload and
 * committed) and the delay loop. It starts once the application is up and keeps
 * trying while the queue is down, so the process stays up and reports not-ready
 * through its health checks instead of exiting.
 */
@Injectable()
export class ExecutorService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ExecutorService.name);
  private readonly processor: ExecutionProcessor;
  private readonly timerLoop: TimerLoop;
  private readonly pendingWork: PendingWork;
  private readonly crashGuard: CrashGuard;
  private readonly systemWorker: SystemWorker;
  private rebuilt = false;
  private guarded = false;
  private systemWorkerStarted = false;
  private subscription: QueueSubscription | undefined;
  private flowChanges: QueueSubscription | undefined;
  private starting: Promise<void> | undefined;
  private stopped = false;

  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(EXECUTOR_OPTIONS) private readonly options: ExecutorOptions,
  ) {
    this.processor = new ExecutionProcessor(repositories, queue, options);
    this.timerLoop = new TimerLoop(repositories, queue, options.topics.executor, options.timerIntervalMs);
    this.pendingWork = new PendingWork(repositories, queue, options.topics.executor);
    // The queue that forgets its messages at a stop is the one whose pending work is rebuilt at start.
    this.crashGuard = new CrashGuard(repositories, !options.rebuildPendingWorkAtStart);
    const { topics } = options;
    this.systemWorker = new SystemWorker(queue, {
      groupId: systemWorkerGroupId(options.groupId),
      topics: {
        jobs: [topics.resubmittedJobs(SYSTEM_WORKER_QUEUE_ID), topics.workerJobs(SYSTEM_WORKER_QUEUE_ID)],
        executor: topics.executor,
        logs: topics.logs,
        triggerResults: topics.triggerResults,
        broadcast: topics.broadcast,
      },
      ...(options.storage === undefined ? {} : { storage: createInternalStorage(options.storage) }),
    });
  }

  /** The in-process worker of the `system` queue. */
  get system(): SystemWorker {
    return this.systemWorker;
  }

  onApplicationBootstrap(): void {
    this.starting = this.startWhenReachable();
  }

  /** Resolves once the executor consumes its topic (or it was stopped first). */
  whenStarted(): Promise<void> {
    return this.starting ?? Promise.resolve();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.starting;
    await this.timerLoop.stop();
    await this.systemWorker.stop();
    await this.flowChanges?.close();
    await this.subscription?.close();
  }

  private async startWhenReachable(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.start();
        return;
      } catch (error) {
        this.logger.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          `executor not started; trying again in ${START_RETRY_MS} ms`,
        );
        await new Promise((resolve) => setTimeout(resolve, START_RETRY_MS));
      }
    }
  }

  private async start(): Promise<void> {
    const { topics, partitions, groupId } = this.options;
    await this.queue.createTopics(topics.ensured.map((topic) => ({ topic, partitions })));
    if (this.stopped) return;
    if (this.flowChanges === undefined) {
      // Every executor hears every flow change (a group of its own, from the end, never committed), before it
      // evaluates a Flow trigger: what it held before following the topic is read again.
      const follow: FollowOptions = {
        groupId: `${groupId}.flows.${randomBytes(6).toString('hex')}`,
        commitOffsets: false,
        topics: [topics.broadcast],
        fromBeginning: false,
        handler: async (message) => this.flowsChanged(message),
      };
      this.flowChanges = await this.queue.subscribe(follow);
      this.processor.forgetFlowTriggers();
    }
    if (this.stopped) return;
    // Before consuming: an execution that stopped the previous processes is quarantined, not replayed into another crash.
    if (!this.guarded) {
      await this.crashGuard.atStart((tenantId, executionId, reason) => this.processor.quarantine(tenantId, executionId, reason));
      this.guarded = true;
    }
    // Each step is done once, so a start retried after a failure picks up where it stopped.
    // A message that fails the same way on every try is parked as a dead letter, so its partition moves on.
    // Its execution ends FAILED with the reason, as a quarantined one does, instead of waiting for an event that never comes.
    const handleOne = parkPoisonMessages((message) => this.handle(message), {
      repositories: this.repositories,
      groupId,
      logger: this.logger,
      // State a newer executor stored: retried until this process is upgraded, never parked (the execution is not failed).
      alsoPassing: (error) => error instanceof NewerStoredState,
      afterParking: async (_message, reason, { tenantId, executionId }) => {
        if (tenantId === undefined || executionId === undefined) return;
        await this.processor.quarantine(
          tenantId,
          executionId,
          `an event of this execution could never be processed and was parked as a dead letter: ${reason}`,
        );
      },
    });
    const subscribeOptions: ExecutorSubscribeOptions = {
      groupId,
      topics: [topics.executor],
      commitIntervalMs: EXECUTOR_COMMIT_INTERVAL_MS,
      // A new group must not miss executions submitted before the first executor joined.
      fromBeginning: true,
      handler: handleOne,
      batchHandler: (messages) => this.handleBatch(messages, handleOne),
      maxBatchMessages: EXECUTOR_BATCH_MESSAGES,
      // A partition may have moved away (its new owner writes its executions) or come back: read them again.
      onAssignment: () => this.processor.forgetCachedExecutions(),
    };
    this.subscription ??= await this.queue.subscribe(subscribeOptions);
    if (this.stopped) return;
    if (this.options.rebuildPendingWorkAtStart && !this.rebuilt) {
      await this.pendingWork.rebuild();
      this.rebuilt = true;
    }
    if (!this.systemWorkerStarted) {
      await this.systemWorker.start();
      this.systemWorkerStarted = true;
    }
    this.timerLoop.start();
    this.logger.log({ topic: topics.executor, groupId, timerIntervalMs: this.options.timerIntervalMs }, 'executor consuming');
  }

  /**
   * A batch of one partition: the events of executions in the ordinary case go
   * through the processor together (see ExecutionProcessor.processBatch); what
   * it hands back, and every event of an execution the crash guard watches or
   * holds, is handled one by one as before (crash guard, dead letters). A
   * message this process cannot decode yet sends the whole batch one by one. A new
   * execution held by maintenance mode is left out by the processor, as one by one (committed, not started).
   */
  private async handleBatch(
    messages: readonly QueueMessage[],
    handleOne: (message: QueueMessage) => Promise<void>,
  ): Promise<void> {
    const together: ExecutorEvent[] = [];
    const byEvent = new Map<ExecutorEvent, QueueMessage>();
    const alone = new Set<string>();
    const executionOf = (event: ExecutorEvent): string => `${event.payload.tenantId}\u0000${event.payload.executionId}`;
    for (const message of messages) {
      let event: ExecutorEvent;
      try {
        event = decodeQueueMessage(executorEventCodec, message.value);
      } catch (error) {
        if (error instanceof InvalidQueueMessageError) {
          await handleOne(message);
          continue;
        }
        for (const each of messages) await handleOne(each);
        return;
      }
      byEvent.set(event, message);
      together.push(event);
      if (this.crashGuard.handlesAlone(event)) alone.add(executionOf(event));
    }
    const grouped = together.filter((event) => !alone.has(executionOf(event)));
    const left = new Set(grouped.length > 0 ? await this.processor.processBatch(grouped) : []);
    // In offset order: the events of one execution stay in the order they came.
    for (const event of together) {
      if (alone.has(executionOf(event)) || left.has(event)) await handleOne(byEvent.get(event) as QueueMessage);
    }
  }

  /** `broadcast.flows-changed`: the tenant's Flow triggers are read again at its next ended execution. */
  private flowsChanged(message: QueueMessage): void {
    let broadcast: BroadcastMessage;
    try {
      broadcast = decodeQueueMessage(broadcastCodec, message.value);
    } catch {
      return; // another consumer of the topic logs what it cannot read
    }
    if (broadcast.type === 'broadcast.flows-changed') this.processor.flowsChanged(broadcast.payload.tenantId);
  }

  private async handle(message: QueueMessage): Promise<void> {
    let event: ExecutorEvent;
    try {
      event = decodeQueueMessage(executorEventCodec, message.value);
    } catch (error) {
      if (error instanceof InvalidQueueMessageError) {
        // The problems name paths and rules, never values: safe to log.
        this.logger.error(
          { topic: message.topic, partition: message.partition, offset: message.offset, reason: error.message },
          'unreadable executor event skipped',
        );
        return;
      }
      // A newer schema version: leave it uncommitted until this process is upgraded.
      throw error;
    }
    if (await this.heldForMaintenance(event)) return;
    await this.crashGuard.guard(event, () => this.processor.process(event));
  }

  /** One by one: see `waitsForMaintenance` (the batch path reads the flag with the batch's new executions). */
  private async heldForMaintenance(event: ExecutorEvent): Promise<boolean> {
    if (event.type !== 'execution.created') return false;
    if (!(await this.repositories.maintenance.get()).enabled) return false;
    const { tenantId, executionId } = event.payload;
    let stored: ExecutorStateRecord | undefined;
    try {
      stored = await this.repositories.executions.getExecutorState(tenantId, executionId);
    } catch (error) {
      if (!(error instanceof NotFound)) throw error;
    }
    if (!waitsForMaintenance(true, stored)) return false;
    this.logger.log({ tenantId, executionId }, 'maintenance mode: new execution waits until it ends');
    return true;
  }
}
