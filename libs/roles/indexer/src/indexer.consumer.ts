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
import type { QueueMessage, QueuePort, QueueSubscription } from '@lanner/queue';
import type { Repositories } from '@lanner/repository';
import { parkPoisonMessages } from '@lanner/dead-letters';
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

/**
 * Copies `log.batch` and `metric.batch` messages into the repository, one
 * message (a batch from one worker flush) per write (a log batch is one
 * statement, see LogRepository.appendBatch), and the API's `audit.entry`
 * messages into the audit log (by message id). Redelivery adds
 * nothing: the repositories only store what is not stored yet. A message that
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
      await this.queue.createTopics(topics.map((topic) => ({ topic, partitions: DEFAULT_TOPIC_PARTITIONS })));
      const subscription = await this.queue.subscribe({
        groupId: this.groupId,
        topics,
        // Logs and audit entries published before the first indexer started must still be indexed.
        fromBeginning: true,
        handler: parkPoisonMessages((message) => this.handle(message), {
          repositories: this.repositories,
          groupId: this.groupId,
          logger: this.logger,
        }),
      });
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

  private async handle(message: QueueMessage): Promise<void> {
    let batch: LogBatchMessage | MetricBatchMessage | AuditEntryMessage;
    try {
      batch =
        message.topic === this.logsTopic
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
      return;
    }
    if (batch.type === 'audit.entry') {
      const entry = batch.payload;
      const added = await this.repositories.auditLogs.append([
        {
          id: batch.messageId,
          tenantId: entry.tenantId,
          occurredAt: new Date(batch.occurredAt),
          action: entry.action,
          resourceType: entry.resourceType,
          resourceId: entry.resourceId,
          namespace: entry.namespace,
          actor: entry.actor,
          clientIp: entry.clientIp,
          userAgent: entry.userAgent,
          outcome: entry.outcome,
          status: entry.status,
          correlationId: batch.correlationId ?? null,
        },
      ]);
      this.logger.debug({ messageId: batch.messageId, action: entry.action, added }, 'audit entry indexed');
      return;
    }
    const { tenantId, executionId } = batch.payload;
    if (batch.type === 'log.batch') {
      const added = await this.repositories.logs.appendBatch(
        tenantId,
        executionId,
        batch.payload.entries.map((entry) => ({ ...entry, timestamp: new Date(entry.timestamp) })),
      );
      this.logger.debug({ executionId, messageId: batch.messageId, added }, 'log lines indexed');
    } else {
      const added = await this.repositories.metrics.appendBatch(
        tenantId,
        executionId,
        batch.payload.metrics.map((metric) => ({ ...metric, timestamp: new Date(metric.timestamp) })),
      );
      this.logger.debug({ executionId, messageId: batch.messageId, added }, 'metrics indexed');
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
