import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import {
  type AuditEntryMessage,
  auditEntryCodec,
  decodeQueueMessage,
  InvalidQueueMessageError,
  type LogBatchMessage,
  logBatchCodec,
  type MetricBatchMessage,
  metricBatchCodec,
  QueueTopics,
  DEFAULT_TOPIC_PARTITIONS,
} from '@lanner/frames';
import type { MessageHandler, QueueMessage, QueuePort, QueueSubscription, SubscribeOptions } from '@lanner/queue';
import {
  type AuditLogRecord,
  BatchedCalls,
  type LogLineBatch,
  type MetricPointBatch,
  type Repositories,
} from '@lanner/repository';
import { describeHandlerFailure, handlerFailureKind, parkPoisonMessages } from '@lanner/dead-letters';
import { QUEUE, REPOSITORIES } from '@lanner/runtime';

export const INDEXER_GROUP_ID = 'lanner-indexer';

/** What the indexer role can be told beyond the shared adapters (integration specs isolate themselves with these). */
export interface IndexerRoleOptions {
  /** Put before every topic name, e.g. `test-1a2b.`; empty in production. */
  readonly topicPrefix?: string;
  /** Default `lanner-indexer`. */
  readonly groupId?: string;
}

export const INDEXER_ROLE_OPTIONS = Symbol('lanner.indexer-role-options');
const RETRY_MS = 2000;
/** The most messages of one partition handed over together. */
const INDEXER_BATCH_MESSAGES = 200;
/**
 * How long a partition's batch may wait for more messages before it is
 * handed over (the Kafka fetch is held on the broker that long). Without it a
 * fetch returns as soon as one message is there, and every log line batch or
 * audit entry costs its own INSERT and commit. Lines reach the repository at
 * most this much later, far below the api's log follower, which keeps reading
 * for 2 s after an execution ends.
 */
const INDEXER_BATCH_WAIT_MS = 200;
/**
 * How long the first partition batch of a quiet moment waits for the batches
 * handed over with it (one fetch brings every partition that has messages,
 * handled side by side), so they share one INSERT per table.
 */
const INDEXER_WRITE_WINDOW_MS = 5;
/** The most partition batches in one shared write. */
const INDEXER_BATCHES_PER_WRITE = 32;
/**
 * How long a handled batch's commit may wait, merged with the others into one
 * request. A crash may then deliver again what was written in that last
 * second, which adds nothing (the repositories store what is not stored yet).
 */
const INDEXER_COMMIT_INTERVAL_MS = 1_000;
/** Every partition of the three topics side by side (the Kafka adapter's options; the in-process queue already does). */
const INDEXER_CONCURRENCY = { partitionsConsumedConcurrently: 3 * DEFAULT_TOPIC_PARTITIONS } as const;
type IndexerSubscribeOptions = SubscribeOptions & {
  concurrency: typeof INDEXER_CONCURRENCY;
  commitIntervalMs: number;
};

type IndexedMessage = LogBatchMessage | MetricBatchMessage | AuditEntryMessage;

/**
 * Copies `log.batch` and `metric.batch` messages into the repository, and the
 * API's `audit.entry` messages into the audit log (by message id), taking what
 * a partition has waiting (after up to INDEXER_BATCH_WAIT_MS) as one batch; the
 * batches of all partitions handled at the same moment share one multi-row
 * INSERT per table (see handleBatch). Redelivery adds nothing: the repositories only
 * store what is not stored yet (unique keys, no lock). A message that
 * can never be read is logged and committed, so it does not stall its
 * partition; one from a newer Lanner is left uncommitted until this process
 * is upgraded; a write that fails while the database is down is retried, one
 * the database refuses for good parks the message as a dead letter.
 */
@Injectable()
export class IndexerConsumer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(IndexerConsumer.name);
  private subscription: QueueSubscription | undefined;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private markStarted!: () => void;
  /** Resolves once the consumer joined its group. */
  readonly started = new Promise<void>((resolve) => (this.markStarted = resolve));

  private readonly logsTopic: string;
  private readonly metricsTopic: string;
  private readonly auditTopic: string;
  private readonly groupId: string;
  /**
   * The partition batches handled at the same moment, written together (see
   * handleBatch). Up to three statements, not one transaction: writing a batch
   * again alone after a failed shared write stores only what is not stored yet.
   */
  private readonly sharedWrites = new BatchedCalls<readonly IndexedMessage[], void>(
    async (batches) => {
      await this.write(batches.flat());
      return batches.map(() => undefined);
    },
    INDEXER_BATCHES_PER_WRITE,
    INDEXER_WRITE_WINDOW_MS,
  );

  constructor(
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(INDEXER_ROLE_OPTIONS) options: IndexerRoleOptions,
  ) {
    this.logsTopic = `${options.topicPrefix ?? ''}${QueueTopics.logs}`;
    this.metricsTopic = `${options.topicPrefix ?? ''}${QueueTopics.metrics}`;
    this.auditTopic = `${options.topicPrefix ?? ''}${QueueTopics.audit}`;
    this.groupId = options.groupId ?? INDEXER_GROUP_ID;
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.startOrRetry();
  }

  // A queue that is down at start must not stop the process: it reports not ready and the indexer keeps trying.
  private async startOrRetry(): Promise<void> {
    try {
      const topics = [this.logsTopic, this.metricsTopic, this.auditTopic];
      // A message that fails the same way on every try is parked as a dead letter, so its partition moves on.
      const handleOne = parkPoisonMessages((message) => this.handle(message), {
        repositories: this.repositories,
        groupId: this.groupId,
        logger: this.logger,
      });
      await this.queue.createTopics(topics.map((topic) => ({ topic, partitions: DEFAULT_TOPIC_PARTITIONS })));
      const options: IndexerSubscribeOptions = {
        groupId: this.groupId,
        topics,
        // Logs and audit entries published before the first indexer started must still be indexed.
        fromBeginning: true,
        handler: handleOne,
        batchHandler: (messages) => this.handleBatch(messages, handleOne),
        maxBatchMessages: INDEXER_BATCH_MESSAGES,
        batchWaitMs: INDEXER_BATCH_WAIT_MS,
        concurrency: INDEXER_CONCURRENCY,
        commitIntervalMs: INDEXER_COMMIT_INTERVAL_MS,
      };
      const subscription = await this.queue.subscribe(options);
      if (this.stopped) {
        await subscription.close();
        return;
      }
      this.subscription = subscription;
      this.markStarted();
    } catch (error) {
      this.logger.warn(
        { reason: error instanceof Error ? error.name : 'error' },
        'could not follow the log, metric and audit topics yet; retrying',
      );
      this.retryTimer = setTimeout(() => {
        if (!this.stopped) void this.startOrRetry();
      }, RETRY_MS);
      this.retryTimer.unref();
    }
  }

  /**
   * What a partition has waiting, written together: every message is read
   * first (an unreadable one is logged and left out, as alone), then all the
   * lines, points and entries go to the repository at once, in the write it
   * shares with the batches of the other partitions handled at the same moment
   * (one INSERT per table for all of them); the batch resolves, and its
   * offsets are committed, only after that write. Should the shared write fail,
   * each batch is written again alone; should that fail for anything but an
   * outage, its messages are written one by one, so a row the database refuses
   * fails (and is parked) alone and the others are stored.
   */
  private async handleBatch(messages: readonly QueueMessage[], handleOne: MessageHandler): Promise<void> {
    const readable: IndexedMessage[] = [];
    const sources: QueueMessage[] = [];
    for (const message of messages) {
      let read: IndexedMessage | undefined;
      try {
        read = this.read(message);
      } catch {
        // A message of a newer Lanner: one by one, so the ones before it are stored and it waits uncommitted.
        for (const each of messages) await handleOne(each);
        return;
      }
      if (read === undefined) continue;
      readable.push(read);
      sources.push(message);
    }
    if (readable.length === 0) return;
    try {
      await this.sharedWrites.call(readable);
    } catch (error) {
      if (handlerFailureKind(error) === 'passing') throw error;
      this.logger.warn(
        {
          topic: messages[0].topic,
          partition: messages[0].partition,
          messages: readable.length,
          reason: describeHandlerFailure(error),
        },
        'batch write failed; writing its messages one by one',
      );
      for (const message of sources) await handleOne(message);
    }
  }

  private async handle(message: QueueMessage): Promise<void> {
    const read = this.read(message);
    if (read !== undefined) await this.write([read]);
  }

  /** The message decoded, or undefined (logged) when no schema accepts it; throws for one of a newer Lanner. */
  private read(message: QueueMessage): IndexedMessage | undefined {
    try {
      return message.topic === this.logsTopic
        ? decodeQueueMessage(logBatchCodec, message.value)
        : message.topic === this.auditTopic
          ? decodeQueueMessage(auditEntryCodec, message.value)
          : decodeQueueMessage(metricBatchCodec, message.value);
    } catch (error) {
      if (!(error instanceof InvalidQueueMessageError)) throw error;
      this.logger.error(
        { topic: message.topic, partition: message.partition, offset: message.offset, problems: error.problems },
        'unreadable message skipped',
      );
      return undefined;
    }
  }

  /** At most one statement per kind (log lines, metric points, audit entries) for all the messages. */
  private async write(messages: readonly IndexedMessage[]): Promise<void> {
    const logs: LogLineBatch[] = [];
    const metrics: MetricPointBatch[] = [];
    const audit: AuditLogRecord[] = [];
    for (const message of messages) {
      if (message.type === 'log.batch') {
        const { tenantId, executionId, entries } = message.payload;
        logs.push({ tenantId, executionId, lines: entries.map((entry) => ({ ...entry, timestamp: new Date(entry.timestamp) })) });
      } else if (message.type === 'metric.batch') {
        const { tenantId, executionId, metrics: points } = message.payload;
        metrics.push({
          tenantId,
          executionId,
          points: points.map((point) => ({ ...point, timestamp: new Date(point.timestamp) })),
        });
      } else {
        const entry = message.payload;
        audit.push({
          id: message.messageId,
          tenantId: entry.tenantId,
          occurredAt: new Date(message.occurredAt),
          action: entry.action,
          resourceType: entry.resourceType,
          resourceId: entry.resourceId,
          namespace: entry.namespace,
          actor: entry.actor,
          clientIp: entry.clientIp,
          userAgent: entry.userAgent,
          outcome: entry.outcome,
          status: entry.status,
          correlationId: message.correlationId ?? null,
        });
      }
    }
    if (logs.length > 0) {
      const added = await this.repositories.logs.appendBatches(logs);
      this.logger.debug({ messages: logs.length, added }, 'log lines indexed');
    }
    if (metrics.length > 0) {
      const added = await this.repositories.metrics.appendBatches(metrics);
      this.logger.debug({ messages: metrics.length, added }, 'metrics indexed');
    }
    if (audit.length > 0) {
      const added = await this.repositories.auditLogs.append(audit);
      this.logger.debug({ messages: audit.length, added }, 'audit entries indexed');
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    const subscription = this.subscription;
    this.subscription = undefined;
    await subscription?.close();
  }
}
