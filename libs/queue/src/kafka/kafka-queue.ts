import {
  ConfigResourceTypes,
  ConfigSource,
  Kafka,
  Partitioners,
  logLevel,
  type Admin,
  type Batch,
  type Consumer,
  type EachBatchPayload,
  type IHeaders,
  type KafkaMessage,
  type Message,
  type Producer,
} from 'kafkajs';
import type {
  BatchHandler,
  QueueMessage,
  QueuePort,
  QueueRecord,
  QueueSubscription,
  SubscribeOptions,
  TopicSpec,
} from '../queue.port';
import { NotSubscribedError, QueueClosedError, QueueConfigError, SubscribeAborted, UnknownTopicError } from '../queue.errors';
import { describeError, silentQueueLogger, type QueueLogger } from '../queue.logger';
import { namespacedQueue } from '../namespaced-queue';
import { assertTopicName } from '../topic-name';
import { retryDelayMs, sleepUnlessAborted } from '../retry-backoff';
import { assertKafkaBrokers } from './kafka-brokers';
import { kafkaLogCreator } from './kafka-log-bridge';
import { kafkaSocketFactory } from './kafka-socket';
import { stopIdleRequestQueueTimers } from './request-queue-idle-timer';
import { SendLane, type LaneSend } from './send-lane';

/** A replaced producer's sends in flight have this long to land before it is disconnected. */
const RETIRED_PRODUCER_GRACE_MS = 30_000;

/** Errors of a merged produce request that may concern only some of its topics (SendLane retries those one by one). */
const PER_TOPIC_SEND_ERRORS = ['UNKNOWN_TOPIC_OR_PARTITION', 'MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE'] as const;

export interface KafkaConsumerTimeouts {
  /** The broker evicts a member silent for this long; default 30 s (the broker's minimum is usually 6 s). */
  sessionTimeoutMs?: number;
  /** default 3 s; also how often a member heartbeats while a handler runs or waits to retry. */
  heartbeatIntervalMs?: number;
  /** How long the group waits for members to rejoin during a rebalance; default 60 s. */
  rebalanceTimeoutMs?: number;
  /** Longest wait of one fetch; bounds how late a close, or a resume while other topics flow, takes effect; default 1 s. */
  maxWaitTimeMs?: number;
  /**
   * How many partitions this member handles at the same time; default 1 (one message
   * at a time for the whole member). Messages of one partition are always handled one
   * after the other, in order, each committed after its handler, so raising this keeps
   * per-key ordering; it suits a handler whose calls for different keys are independent.
   */
  partitionsConsumedConcurrently?: number;
  /**
   * How many messages of one partition this member handles at the same time; default 1.
   * Above 1, messages with the same key still run one after the other in order, messages
   * with different keys overlap, and the partition's offset is committed only up to the
   * first message whose handler has not resolved yet (commits of finished messages are
   * merged), so a crash redelivers every message not handled, never skips one.
   */
  messagesPerPartition?: number;
}

/**
 * Kafka-only subscribe settings, read from the options passed to `subscribe`
 * (other adapters ignore them). The port's `concurrency` overrides the
 * queue-wide `consumer` settings for this subscription alone.
 */
export interface KafkaSubscribeOptions extends SubscribeOptions {
  /**
   * How long the commit of a handled message may wait, merged with the member's
   * other commits into one request; default 0 (each message is committed before
   * the member fetches again). Above 0 the member fetches again at once, and a
   * crash or a rebalance may deliver again what was handled in that last stretch,
   * so it suits a handler that recognises a message it has already handled. The
   * first commit of each partition, and every commit while closing, is never
   * deferred, and what is waiting is committed when the subscription closes.
   */
  commitIntervalMs?: number;
  /**
   * `false`: the member never commits an offset (default `true`). For a group of
   * one process that only follows the topic from its end, whose offsets nobody
   * reads again (the api's execution-updates feed): a rejoin starts where
   * `fromBeginning` says, as for a new group. Handling is unchanged (a failing
   * message is retried, order per partition holds); only the commit requests go.
   */
  commitOffsets?: boolean;
}

export interface KafkaQueueOptions {
  /** `host:port` addresses; parse `KAFKA_BROKERS` with `parseKafkaBrokers`. */
  brokers: string[];
  clientId: string;
  /** kafkajs' own log lines go here (at `kafkaLogLevel`); without a logger they are dropped. */
  logger?: QueueLogger;
  kafkaLogLevel?: 'error' | 'warn' | 'info' | 'debug';
  consumer?: KafkaConsumerTimeouts;
  /** Replication factor of topics made by createTopics; default: the broker's default. */
  replicationFactor?: number;
  /** default 3 s */
  connectionTimeoutMs?: number;
  /** default 30 s */
  requestTimeoutMs?: number;
  /** How long `ping` waits for the cluster to answer; default 5 s. */
  pingTimeoutMs?: number;
  /** Prefix of every topic and consumer group on the broker, invisible to callers (see namespacedQueue); default none. */
  namespace?: string;
}

/**
 * Largest record (and record batch) the topics made by createTopics accept: a 4 MiB
 * job or result frame plus its envelope. Consumers fetch up to this much per partition.
 */
export const MAX_RECORD_BYTES = 5 * 1024 * 1024;
/** What Kafka adds around a record's key, value and headers (batch header, varints). */
const RECORD_OVERHEAD_BYTES = 128;
/** The most messages a batch handler is given at once unless the subscription says otherwise. */
const DEFAULT_MAX_BATCH_MESSAGES = 100;
/** With `batchWaitMs`, a fetch the broker holds is answered at once when this much is waiting (a backlog is not held). */
const BATCH_WAIT_MIN_BYTES = 1024 * 1024;

/** A record (or a publish's records together) larger than the topic accepts. */
export class RecordTooLargeError extends Error {
  override readonly name = 'RecordTooLargeError';
  constructor(
    readonly topic: string,
    readonly sizeBytes: number,
    readonly limitBytes: number | undefined,
  ) {
    super(
      limitBytes === undefined
        ? `A record of ${sizeBytes} bytes is larger than topic "${topic}" accepts (the topic was created with a smaller max.message.bytes)`
        : `A record of ${sizeBytes} bytes is larger than topic "${topic}" accepts (at most ${limitBytes} bytes)`,
    );
  }
}

const kafkaLogLevels = {
  error: logLevel.ERROR,
  warn: logLevel.WARN,
  info: logLevel.INFO,
  debug: logLevel.DEBUG,
} as const;

/** The Kafka adapter of the queue port (kafkajs 2.2.4). */
export function createKafkaQueue(options: KafkaQueueOptions): QueuePort {
  assertKafkaBrokers(options.brokers, 'brokers');
  if (options.clientId.trim() === '') throw new QueueConfigError('clientId must not be empty');
  assertConcurrency(options.consumer?.partitionsConsumedConcurrently, 'consumer.partitionsConsumedConcurrently');
  assertConcurrency(options.consumer?.messagesPerPartition, 'consumer.messagesPerPartition');
  // Before any connection: kafkajs 2.2.4 otherwise runs a 1 ms timer on every idle connection.
  stopIdleRequestQueueTimers();
  return namespacedQueue(new KafkaQueue(options), options.namespace ?? '');
}

class KafkaQueue implements QueuePort {
  private readonly kafka: Kafka;
  private readonly logger: QueueLogger;
  private readonly subscriptions = new Set<KafkaSubscription>();
  private producer: Promise<Producer> | undefined;
  /** Producers replaced after a metadata failure, disconnected after RETIRED_PRODUCER_GRACE_MS (or at close). */
  private readonly retiredProducers = new Map<Producer, NodeJS.Timeout>();
  /** Publishes of one record batch made while a produce request is in flight go out together in the next. */
  private readonly lane = new SendLane({
    sendAll: async (sends) => {
      const producer = await this.connectedProducer();
      const byTopic = new Map<string, Message[]>();
      for (const send of sends) {
        let messages = byTopic.get(send.topic);
        if (!messages) byTopic.set(send.topic, (messages = []));
        for (const record of send.records) messages.push({ key: record.key, value: record.value, headers: record.headers });
      }
      await producer.sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) });
    },
    sendOne: (send) => this.sendOne(send),
    isPerTopicError: (error) =>
      error instanceof UnknownTopicError ||
      error instanceof RecordTooLargeError ||
      PER_TOPIC_SEND_ERRORS.some((type) => hasErrorType(error, type)),
    maxTopicBytes: MAX_RECORD_BYTES,
  });
  private admin: Promise<Admin> | undefined;
  private lagAdmin: Promise<Admin> | undefined;
  private closed = false;

  constructor(private readonly options: KafkaQueueOptions) {
    this.logger = options.logger ?? silentQueueLogger;
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      connectionTimeout: options.connectionTimeoutMs ?? 3_000,
      requestTimeout: options.requestTimeoutMs ?? 30_000,
      logLevel: options.logger ? kafkaLogLevels[options.kafkaLogLevel ?? 'warn'] : logLevel.NOTHING,
      logCreator: kafkaLogCreator(this.logger),
      socketFactory: kafkaSocketFactory,
    });
  }

  async createTopics(specs: TopicSpec[]): Promise<void> {
    this.assertOpen();
    if (specs.length === 0) return;
    for (const spec of specs) {
      assertTopicName(spec.topic);
      if (spec.partitions !== undefined && (!Number.isInteger(spec.partitions) || spec.partitions < 1)) {
        throw new QueueConfigError(`Topic "${spec.topic}": partitions must be a positive integer, got ${spec.partitions}`);
      }
    }
    const admin = await this.connectedAdmin();
    // Resolves `false` when every topic already exists; throws for a mix, which
    // happens when another process creates one of them at the same time.
    await admin
      .createTopics({
        topics: specs.map((spec) => ({
          topic: spec.topic,
          numPartitions: spec.partitions ?? -1,
          replicationFactor: this.options.replicationFactor ?? -1,
          // Brokers default to about 1 MiB; a job or a result may be 4 MiB.
          configEntries: [{ name: 'max.message.bytes', value: String(MAX_RECORD_BYTES) }],
        })),
        waitForLeaders: true,
      })
      .catch((error: unknown) => {
        // A topic that was just created may not be known to every broker yet:
        // waitUntilUsable below retries that, and fails naming the topic.
        const types = errorTypes(error);
        if (types.length === 0 || !types.every((type) => type === 'TOPIC_ALREADY_EXISTS' || TRANSIENT_TOPIC_ERRORS.has(type)))
          throw error;
      });
    await this.waitUntilUsable(
      admin,
      specs.map((spec) => spec.topic),
    );
    await this.raiseRecordLimit(
      admin,
      specs.map((spec) => spec.topic),
    );
  }

  async deleteTopics(topics: string[]): Promise<void> {
    this.assertOpen();
    const admin = await this.connectedAdmin();
    const existing = new Set(await admin.listTopics());
    const toDelete = topics.filter((topic) => existing.has(topic));
    if (toDelete.length === 0) return;
    await admin.deleteTopics({ topics: toDelete }).catch((error: unknown) => {
      if (!allErrorsOfType(error, 'UNKNOWN_TOPIC_OR_PARTITION')) throw error;
    });
  }

  async publish(topic: string, records: QueueRecord[]): Promise<void> {
    this.assertOpen();
    assertTopicName(topic);
    if (records.length === 0) return;
    const chunks = recordChunks(topic, records);
    // A publish of one record batch shares a produce request with those made meanwhile (SendLane).
    if (chunks.length === 1) return this.lane.send({ topic, records: chunks[0].records, sizeBytes: chunks[0].sizeBytes });
    // One send per chunk, in order: a record batch stays within the topic's limit.
    for (const chunk of chunks) await this.sendOne({ topic, records: chunk.records, sizeBytes: chunk.sizeBytes });
  }

  private async sendOne(send: LaneSend): Promise<void> {
    const producer = await this.connectedProducer();
    try {
      await this.sendWith(producer, send);
    } catch (error) {
      if (!(error instanceof UnknownTopicError) || !(await this.topicExists(send.topic))) throw error;
      // The topic exists, yet the producer cannot see it: a kafkajs client that has
      // published to a topic deleted since (a worker queue removed through the API)
      // fails every later metadata refresh. A new producer starts from a clean slate.
      this.logger.warn(
        { topic: send.topic },
        'Kafka producer replaced: it could no longer read topic metadata (a topic it published to was deleted)',
      );
      await this.sendWith(await this.replaceProducer(producer), send);
    }
  }

  private async sendWith(producer: Producer, send: LaneSend): Promise<void> {
    try {
      await producer.send({
        topic: send.topic,
        acks: -1,
        messages: send.records.map((record) => ({ key: record.key, value: record.value, headers: record.headers })),
      });
    } catch (error) {
      if (hasErrorType(error, 'UNKNOWN_TOPIC_OR_PARTITION')) throw new UnknownTopicError(send.topic);
      if (hasErrorType(error, 'MESSAGE_TOO_LARGE') || hasErrorType(error, 'RECORD_LIST_TOO_LARGE')) {
        throw new RecordTooLargeError(send.topic, send.sizeBytes, undefined);
      }
      throw error;
    }
  }

  /** Whether the broker lists the topic (the shared admin client only lists topics, so deletions never confuse it). */
  private async topicExists(topic: string): Promise<boolean> {
    try {
      return (await (await this.connectedAdmin()).listTopics()).includes(topic);
    } catch {
      return false;
    }
  }

  /**
   * Swaps `stale` for a new producer (once, however many publishes found it
   * stale) and disconnects it once what it still sends has had time to land.
   */
  private async replaceProducer(stale: Producer): Promise<Producer> {
    const current = await this.producer?.catch(() => undefined);
    if (current === stale) {
      this.producer = undefined;
      const timer = setTimeout(() => {
        this.retiredProducers.delete(stale);
        void stale.disconnect().catch(() => undefined);
      }, RETIRED_PRODUCER_GRACE_MS);
      timer.unref();
      this.retiredProducers.set(stale, timer);
    }
    return this.connectedProducer();
  }

  async subscribe(options: SubscribeOptions): Promise<QueueSubscription> {
    this.assertOpen();
    if (options.groupId.trim() === '') throw new QueueConfigError('groupId must not be empty');
    if (options.topics.length === 0) throw new QueueConfigError('topics must not be empty');
    options.topics.forEach(assertTopicName);
    const concurrency = options.concurrency ?? {};
    assertConcurrency(concurrency.partitionsConsumedConcurrently, 'concurrency.partitionsConsumedConcurrently');
    assertConcurrency(concurrency.messagesPerPartition, 'concurrency.messagesPerPartition');
    const commitIntervalMs = (options as KafkaSubscribeOptions).commitIntervalMs ?? 0;
    if (!Number.isInteger(commitIntervalMs) || commitIntervalMs < 0) {
      throw new QueueConfigError(`commitIntervalMs must be a non-negative integer, got ${commitIntervalMs}`);
    }
    assertConcurrency(options.maxBatchMessages, 'maxBatchMessages');
    const timeouts = this.options.consumer ?? {};
    const heartbeatIntervalMs = timeouts.heartbeatIntervalMs ?? 3_000;
    const batchWaitMs = options.batchHandler !== undefined ? (options.batchWaitMs ?? 0) : 0;
    assertBatchWait(options.batchWaitMs, heartbeatIntervalMs);
    const consumer = this.kafka.consumer({
      groupId: options.groupId,
      sessionTimeout: timeouts.sessionTimeoutMs ?? 30_000,
      heartbeatInterval: heartbeatIntervalMs,
      rebalanceTimeout: timeouts.rebalanceTimeoutMs ?? 60_000,
      // A batch that may wait: the broker holds each fetch until BATCH_WAIT_MIN_BYTES
      // are waiting or batchWaitMs have passed (kafkajs heartbeats between fetches).
      maxWaitTimeInMs: batchWaitMs > 0 ? batchWaitMs : (timeouts.maxWaitTimeMs ?? 1_000),
      minBytes: batchWaitMs > 0 ? BATCH_WAIT_MIN_BYTES : 1,
      allowAutoTopicCreation: false,
      // kafkajs fetches 1 MiB per partition by default; a record may be up to MAX_RECORD_BYTES.
      maxBytesPerPartition: MAX_RECORD_BYTES,
      maxBytes: 2 * MAX_RECORD_BYTES,
    });
    const subscription = new KafkaSubscription(
      consumer,
      options,
      heartbeatIntervalMs,
      concurrency.partitionsConsumedConcurrently ?? timeouts.partitionsConsumedConcurrently ?? 1,
      concurrency.messagesPerPartition ?? timeouts.messagesPerPartition ?? 1,
      commitIntervalMs,
      this.logger,
    );
    const { signal } = options;
    if (signal?.aborted) throw new SubscribeAborted(options.groupId);
    this.subscriptions.add(subscription);
    // The member closes whenever the signal is aborted, while it starts as well as after.
    const closeOnAbort = () => void subscription.close().catch(() => undefined);
    signal?.addEventListener('abort', closeOnAbort, { once: true });
    void subscription.closed.then(() => signal?.removeEventListener('abort', closeOnAbort));
    try {
      await subscription.start();
    } catch (error) {
      this.subscriptions.delete(subscription);
      await subscription.close();
      if (hasErrorType(error, 'UNKNOWN_TOPIC_OR_PARTITION')) {
        throw new UnknownTopicError(options.topics.join(', '));
      }
      throw error;
    }
    void subscription.closed.then(() => this.subscriptions.delete(subscription));
    return subscription;
  }

  async consumerLag(groupId: string, topics: readonly string[]): Promise<ReadonlyMap<string, number>> {
    this.assertOpen();
    if (groupId.trim() === '') throw new QueueConfigError('groupId must not be empty');
    topics.forEach(assertTopicName);
    const wanted = [...new Set(topics)];
    if (wanted.length === 0) return new Map();
    try {
      return await this.readLag(groupId, wanted);
    } catch (error) {
      if (error instanceof UnknownTopicError) throw error;
      // kafkajs keeps asking about every topic an admin client has looked at, and fails
      // once one is deleted: start again from a fresh client (see connectedLagAdmin).
      await this.dropLagAdmin();
      if (!hasErrorType(error, 'UNKNOWN_TOPIC_OR_PARTITION')) throw error;
    }
    try {
      return await this.readLag(groupId, wanted);
    } catch (error) {
      if (error instanceof UnknownTopicError) throw error;
      await this.dropLagAdmin();
      // A topic deleted while its offsets were being read.
      if (hasErrorType(error, 'UNKNOWN_TOPIC_OR_PARTITION')) throw new UnknownTopicError(wanted.join(', '));
      throw error;
    }
  }

  async ping(): Promise<void> {
    this.assertOpen();
    const timeoutMs = this.options.pingTimeoutMs ?? 5_000;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Kafka did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([this.connectedAdmin().then((admin) => admin.describeCluster()), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    for (const timer of this.retiredProducers.values()) clearTimeout(timer);
    const retired = [...this.retiredProducers.keys()].map((producer) => Promise.resolve(producer));
    this.retiredProducers.clear();
    const clients: Array<Promise<Producer | Admin> | undefined> = [this.producer, this.admin, this.lagAdmin, ...retired];
    await Promise.all(
      clients.map(async (client) => {
        // A client that never connected has nothing to disconnect.
        const connected = await client?.catch(() => undefined);
        await connected?.disconnect();
      }),
    );
  }

  private assertOpen(): void {
    if (this.closed) throw new QueueClosedError();
  }

  private connectedProducer(): Promise<Producer> {
    if (!this.producer) {
      const producer = this.kafka.producer({
        // Java-compatible murmur2 partitioning; naming it also keeps kafkajs from
        // printing its "default partitioner changed" warning.
        createPartitioner: Partitioners.DefaultPartitioner,
        allowAutoTopicCreation: false,
        // One request in flight per broker so a retried batch cannot overtake the next one.
        maxInFlightRequests: 1,
      });
      this.producer = producer.connect().then(() => producer);
      // A failed connect is retried by the next publish.
      this.producer.catch(() => (this.producer = undefined));
    }
    return this.producer;
  }

  private async readLag(groupId: string, topics: string[]): Promise<Map<string, number>> {
    const admin = await this.connectedLagAdmin();
    const existing = new Set(await admin.listTopics());
    const unknown = topics.find((topic) => !existing.has(topic));
    if (unknown !== undefined) throw new UnknownTopicError(unknown);
    // Settled together: no request of this read is still retrying once it fails.
    const [ends, committed] = await allSettledOrThrow([
      allSettledOrThrow(topics.map((topic) => admin.fetchTopicOffsets(topic))),
      admin.fetchOffsets({ groupId, topics }),
    ] as const);
    const lag = new Map<string, number>();
    topics.forEach((topic, index) => {
      const committedByPartition = new Map(
        (committed.find((entry) => entry.topic === topic)?.partitions ?? []).map((entry) => [
          entry.partition,
          BigInt(entry.offset),
        ]),
      );
      let records = 0n;
      for (const partition of ends[index]) {
        const low = BigInt(partition.low);
        const high = BigInt(partition.high);
        // -1: the group never committed here; it starts from the first retained record.
        const from = committedByPartition.get(partition.partition) ?? -1n;
        const position = from < low ? low : from;
        if (high > position) records += high - position;
      }
      lag.set(topic, Number(records));
    });
    return lag;
  }

  /**
   * An admin client of its own for lag reads: they look at topics other processes
   * may delete, and a kafkajs admin client that has looked at a deleted topic fails
   * its next metadata refresh; this one is replaced then, the shared one never is.
   */
  private connectedLagAdmin(): Promise<Admin> {
    if (!this.lagAdmin) {
      // Few retries: a lag read is repeated at the next scrape anyway.
      const admin = this.kafka.admin({ retry: { retries: 2 } });
      this.lagAdmin = admin.connect().then(() => admin);
      this.lagAdmin.catch(() => (this.lagAdmin = undefined));
    }
    return this.lagAdmin;
  }

  private async dropLagAdmin(): Promise<void> {
    const lagAdmin = this.lagAdmin;
    this.lagAdmin = undefined;
    const connected = await lagAdmin?.catch(() => undefined);
    await connected?.disconnect().catch(() => undefined);
  }

  private connectedAdmin(): Promise<Admin> {
    if (!this.admin) {
      const admin = this.kafka.admin();
      this.admin = admin.connect().then(() => admin);
      this.admin.catch(() => (this.admin = undefined));
    }
    return this.admin;
  }

  /**
   * A topic that existed before (made by an older Lanner, or by hand) keeps the
   * broker's smaller record limit: raise it, keeping the topic's other settings.
   * Best effort: without the right to alter configs, records over the old limit
   * are refused by publish with an error naming the topic and the size.
   */
  private async raiseRecordLimit(admin: Admin, topics: string[]): Promise<void> {
    try {
      const { resources } = await admin.describeConfigs({
        resources: topics.map((name) => ({ type: ConfigResourceTypes.TOPIC, name })),
        includeSynonyms: false,
      });
      const tooSmall = resources.filter((resource) => {
        const limit = resource.configEntries.find((entry) => entry.configName === 'max.message.bytes');
        return limit !== undefined && Number(limit.configValue) < MAX_RECORD_BYTES;
      });
      if (tooSmall.length === 0) return;
      await admin.alterConfigs({
        validateOnly: false,
        resources: tooSmall.map((resource) => ({
          type: ConfigResourceTypes.TOPIC,
          name: resource.resourceName,
          // AlterConfigs replaces all of a topic's own settings: send the ones it has again.
          configEntries: [
            ...resource.configEntries
              .filter((entry) => entry.configSource === ConfigSource.TOPIC_CONFIG && entry.configName !== 'max.message.bytes')
              .map((entry) => ({ name: entry.configName, value: entry.configValue })),
            { name: 'max.message.bytes', value: String(MAX_RECORD_BYTES) },
          ],
        })),
      });
      this.logger.info(
        { topics: tooSmall.map((resource) => resource.resourceName), maxMessageBytes: MAX_RECORD_BYTES },
        'raised the record limit of existing topics',
      );
    } catch (error) {
      this.logger.warn(
        { topics, error: describeError(error) },
        'could not raise the record limit of existing topics; larger records will be refused',
      );
    }
  }

  /**
   * Resolves once every partition of each topic has a leader that serves it
   * (a ListOffsets answer from the leader), so a publish right after
   * createTopics succeeds. Right after creation brokers may still answer
   * "does not host this topic-partition" or "leader not available": that is
   * retried with a bounded backoff; a topic still not usable after
   * TOPIC_READY_TIMEOUT_MS fails with an error naming it. Also covers topics
   * that already existed, which kafkajs' own wait for leaders does not.
   */
  private async waitUntilUsable(admin: Admin, topics: string[]): Promise<void> {
    for (const topic of topics) {
      const startedAt = Date.now();
      for (let attempt = 1; ; attempt++) {
        let reason: string;
        try {
          const { topics: metadata } = await admin.fetchTopicMetadata({ topics: [topic] });
          const partitions = metadata.flatMap((entry) => entry.partitions);
          if (partitions.length > 0 && partitions.every((partition) => partition.leader >= 0)) {
            await admin.fetchTopicOffsets(topic);
            break;
          }
          reason = 'a partition has no leader yet';
        } catch (error) {
          const types = errorTypes(error);
          if (types.length === 0 || !types.some((type) => TRANSIENT_TOPIC_ERRORS.has(type))) throw error;
          reason = types.join(', ');
        }
        if (Date.now() - startedAt >= TOPIC_READY_TIMEOUT_MS) {
          throw new Error(
            `Topic "${topic}" is not usable ${TOPIC_READY_TIMEOUT_MS} ms after it was created (${reason}); check the Kafka brokers`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 50 * 2 ** Math.min(attempt - 1, 5))));
      }
    }
  }
}

/** One kafkajs consumer = one member of the group. */
class KafkaSubscription implements QueueSubscription {
  private readonly paused = new Set<string>();
  /**
   * The paused topic kafkajs still fetches: the last one paused, once every
   * topic is. A kafkajs consumer with every partition paused sleeps its whole
   * `maxWaitTime` before each fetch and does not notice a resume during that
   * sleep, so a member that pauses and resumes often would take work late. The
   * batches of this topic wait in `admitted` instead, where a resume wakes them.
   */
  private gated: string | undefined;
  /** Batches waiting at the gate, woken by any pause, resume or close. */
  private readonly gateWaiters = new Set<() => void>();
  private readonly topics: ReadonlySet<string>;
  /** False for a member that never commits (see `KafkaSubscribeOptions.commitOffsets`). */
  private readonly commits: boolean;
  /** Cuts a retry backoff short on close. */
  private readonly abort = new AbortController();
  private closing: Promise<void> | undefined;
  /** Handled offsets whose commit waits for the interval, per `topic|partition` (see `commitIntervalMs`). */
  private readonly deferredCommits = new Map<string, { topic: string; partition: number; offset: string }>();
  /** Partitions this member has committed on: the first commit of each is never deferred. */
  private readonly committedOnce = new Set<string>();
  /** The partitions assigned at the last join; undefined before the first. */
  private assigned: ReadonlySet<string> | undefined;
  private commitTimer: NodeJS.Timeout | undefined;
  /** Flushes of deferred commits, one after the other. */
  private flushing: Promise<void> = Promise.resolve();
  /** connect, subscribe and run (which joins the group) of `start`; settled once they are done. */
  private launched: Promise<void> = Promise.resolve();
  private beginClosing!: () => void;
  private readonly closingBegun = new Promise<void>((resolve) => {
    this.beginClosing = resolve;
  });
  private resolveClosed!: () => void;
  readonly closed = new Promise<void>((resolve) => {
    this.resolveClosed = resolve;
  });

  constructor(
    private readonly consumer: Consumer,
    private readonly options: SubscribeOptions,
    private readonly heartbeatIntervalMs: number,
    private readonly partitionsConsumedConcurrently: number,
    private readonly messagesPerPartition: number,
    private readonly commitIntervalMs: number,
    private readonly logger: QueueLogger,
  ) {
    this.topics = new Set(options.topics);
    this.commits = (options as KafkaSubscribeOptions).commitOffsets !== false;
  }

  async start(): Promise<void> {
    const { consumer } = this;
    // kafkajs resolves where a partition without a committed offset starts (the
    // latest offset, by default) in the first fetch after joining, not in the join
    // itself; waiting for that fetch means a record published after `subscribe`
    // resolves is delivered.
    const ready = new Promise<void>((resolve, reject) => {
      let joinedGroup = false;
      consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
        joinedGroup = true;
        this.assignedAfterJoin(payload.memberAssignment);
        this.options.onAssignment?.();
        // A consumer restarted after a crash has a fresh group state: pause again.
        const held = [...this.paused].filter((topic) => topic !== this.gated);
        if (held.length > 0) consumer.pause(held.map((topic) => ({ topic })));
      });
      consumer.on(consumer.events.FETCH, () => {
        if (joinedGroup) resolve();
      });
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        this.logger.error(
          { groupId: this.options.groupId, restart: payload.restart, error: describeError(payload.error) },
          'Kafka consumer crashed',
        );
        if (!payload.restart) reject(payload.error);
      });
    });
    // Observed only below; a crash after a failed start must not become an unhandled rejection.
    ready.catch(() => undefined);
    this.launched = (async () => {
      await consumer.connect();
      if (this.closing) return;
      await consumer.subscribe({ topics: this.options.topics, fromBeginning: this.options.fromBeginning ?? false });
      if (this.closing) return;
      await consumer.run({
        autoCommit: false,
        // Only handled messages are resolved, so a batch left half-way (pause,
        // close, rebalance) is fetched again from the first unhandled message.
        eachBatchAutoResolve: false,
        // kafkajs never runs two batches of one partition at once, so order per partition holds.
        partitionsConsumedConcurrently: this.partitionsConsumedConcurrently,
        eachBatch: (payload) => this.handleBatch(payload),
      });
    })();
    await this.launched;
    // The first fetch may hold batches whose handlers wait (for a worker's slot): closing does not wait for it.
    await Promise.race([ready, this.closingBegun]);
    if (this.closing) throw new SubscribeAborted(this.options.groupId);
  }

  pause(topic: string): void {
    this.assertSubscribed(topic);
    if (this.paused.has(topic)) return;
    this.paused.add(topic);
    if (this.closing) return;
    // The last topic still flowing stays fetched; its batches wait at the gate (see `gated`).
    if (this.paused.size === this.topics.size) this.gated = topic;
    else this.consumer.pause([{ topic }]);
  }

  resume(topic: string): void {
    this.assertSubscribed(topic);
    if (!this.paused.delete(topic)) return;
    if (this.closing) return;
    const gated = this.gated;
    this.gated = undefined;
    if (topic !== gated) {
      this.consumer.resume([{ topic }]);
      // Another topic flows again, so the gated one is paused like the rest (its waiting batches end).
      if (gated !== undefined) this.consumer.pause([{ topic: gated }]);
    }
    this.wakeGateWaiters();
  }

  isPaused(topic: string): boolean {
    return this.paused.has(topic);
  }

  /** Callable while `start` runs: handlers are given up on quietly from this call on (see `mustStop`). */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.abort.abort();
      this.wakeGateWaiters();
      this.beginClosing();
      // A consumer stopped in the middle of joining its group would rejoin once the join is over: the join finishes first.
      await this.launched.catch(() => undefined);
      // While the member still runs; commits from here on are not deferred.
      await this.flushDeferredCommits();
      // Waits for the running batch: the handler in flight finishes and commits.
      await this.consumer.disconnect();
      this.resolveClosed();
    })();
    return this.closing;
  }

  private assertSubscribed(topic: string): void {
    if (!this.topics.has(topic)) throw new NotSubscribedError(topic);
  }

  /** The member is closing, or its partitions are moving (rebalance): the batch must end, leaving the rest uncommitted. */
  private mustStop(payload: EachBatchPayload): boolean {
    return this.closing !== undefined || !payload.isRunning() || payload.isStale();
  }

  private wakeGateWaiters(): void {
    for (const wake of this.gateWaiters) wake();
    this.gateWaiters.clear();
  }

  /**
   * Whether the batch may go on with its next message. A batch of the gated
   * topic waits here for its resume, heartbeating; a batch of a topic paused in
   * kafkajs ends, and what is left of it is fetched again after the resume.
   */
  private async admitted(topic: string, payload: EachBatchPayload): Promise<boolean> {
    while (this.gated === topic && !this.mustStop(payload)) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(wake, this.heartbeatIntervalMs);
        const waiters = this.gateWaiters;
        function wake(): void {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve();
        }
        waiters.add(wake);
      });
      if (this.gated !== topic || this.mustStop(payload)) break;
      try {
        // Throws when the group rebalances: the batch ends and its messages come back uncommitted.
        await payload.heartbeat();
      } catch {
        return false;
      }
    }
    if (this.mustStop(payload)) return false;
    if (!this.paused.has(topic)) return true;
    // Paused in kafkajs (by pause, or by resume of another topic while this one was gated).
    this.consumer.pause([{ topic }]);
    return false;
  }

  /**
   * True when the commit of `offset` (the next one to read) is left for the
   * interval, merged with the member's others; false when the caller commits
   * it now: no interval, closing, or the partition's first commit here (a group
   * with no committed offset starts a new member at the latest offset, which
   * would skip what this one had not handled yet).
   */
  private deferCommit(topic: string, partition: number, offset: string): boolean {
    // Never committed: as if it were left for an interval that never comes.
    if (!this.commits) return true;
    const key = partitionKey(topic, partition);
    if (this.commitIntervalMs === 0 || this.closing !== undefined || !this.committedOnce.has(key)) {
      this.committedOnce.add(key);
      // What waited is behind this commit.
      this.deferredCommits.delete(key);
      return false;
    }
    this.deferredCommits.set(key, { topic, partition, offset });
    this.commitTimer ??= setTimeout(() => void this.flushDeferredCommits(), this.commitIntervalMs);
    return true;
  }

  /** Commits every deferred offset in one request; on failure they wait for the next interval, unless their partition moved. */
  private flushDeferredCommits(): Promise<void> {
    clearTimeout(this.commitTimer);
    this.commitTimer = undefined;
    this.flushing = this.flushing.then(async () => {
      if (this.deferredCommits.size === 0) return;
      const offsets = [...this.deferredCommits.values()];
      this.deferredCommits.clear();
      try {
        await this.consumer.commitOffsets(offsets);
      } catch (error) {
        for (const entry of offsets) {
          const key = partitionKey(entry.topic, entry.partition);
          // A newer offset of the partition replaces it; a partition moved to another member is that member's now.
          if (!this.deferredCommits.has(key) && (this.assigned === undefined || this.assigned.has(key)))
            this.deferredCommits.set(key, entry);
        }
        this.logger.warn(
          { groupId: this.options.groupId, error: describeError(error) },
          'Kafka offsets not committed yet; will try again',
        );
        if (this.deferredCommits.size > 0 && this.closing === undefined) {
          this.commitTimer ??= setTimeout(() => void this.flushDeferredCommits(), this.commitIntervalMs);
        }
      }
    });
    return this.flushing;
  }

  /** After a rebalance, offsets waiting for partitions now assigned elsewhere are dropped (their new member reads from the last commit). */
  private assignedAfterJoin(assignment: Record<string, number[]>): void {
    this.assigned = new Set(
      Object.entries(assignment).flatMap(([topic, partitions]) => partitions.map((partition) => partitionKey(topic, partition))),
    );
    for (const key of this.deferredCommits.keys()) if (!this.assigned.has(key)) this.deferredCommits.delete(key);
  }

  private handleBatch(payload: EachBatchPayload): Promise<void> {
    if (this.options.batchHandler !== undefined) return this.handleBatchTogether(payload, this.options.batchHandler);
    return this.messagesPerPartition > 1
      ? this.handleBatchOverlapping(payload, this.messagesPerPartition)
      : this.handleBatchInOrder(payload);
  }

  /** The fetched messages in groups of up to `maxBatchMessages`, each group handled, then committed, as one message is. */
  private async handleBatchTogether(payload: EachBatchPayload, handler: BatchHandler): Promise<void> {
    const { batch } = payload;
    const size = this.options.maxBatchMessages ?? DEFAULT_MAX_BATCH_MESSAGES;
    for (let start = 0; start < batch.messages.length; start += size) {
      if (this.mustStop(payload)) return;
      if (this.paused.has(batch.topic) && !(await this.admitted(batch.topic, payload))) return;
      const group = batch.messages.slice(start, start + size);
      const handled = await this.handleWithRetry(batch, group[0], payload, undefined, () =>
        handler(group.map((raw) => toQueueMessage(batch, raw))),
      );
      if (!handled) return;
      const last = group[group.length - 1].offset;
      payload.resolveOffset(last);
      const next = (BigInt(last) + 1n).toString();
      if (this.deferCommit(batch.topic, batch.partition, next)) continue;
      await payload.commitOffsetsIfNecessary({
        topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: next }] }],
      });
    }
  }

  private async handleBatchInOrder(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    for (const message of batch.messages) {
      if (this.mustStop(payload)) return;
      if (this.paused.has(batch.topic) && !(await this.admitted(batch.topic, payload))) return;
      const handled = await this.handleWithRetry(batch, message, payload);
      if (!handled) return;
      payload.resolveOffset(message.offset);
      const next = (BigInt(message.offset) + 1n).toString();
      if (this.deferCommit(batch.topic, batch.partition, next)) continue;
      // Commit this one message before taking the next (commit after handling).
      await payload.commitOffsetsIfNecessary({
        topics: [
          {
            topic: batch.topic,
            partitions: [{ partition: batch.partition, offset: next }],
          },
        ],
      });
    }
  }

  /**
   * Up to `limit` messages of the partition at once; same-key messages chained
   * in order. Offsets advance over the finished prefix only, and commits that
   * pile up while one is in flight are merged into the next.
   */
  private async handleBatchOverlapping(payload: EachBatchPayload, limit: number): Promise<void> {
    const { batch } = payload;
    /** Started messages not yet committed, in offset order. */
    const started: Array<{ offset: string; done: boolean }> = [];
    const inFlight = new Set<Promise<void>>();
    const tailByKey = new Map<string, Promise<void>>();
    let stopped = false;
    let failure: { error: unknown } | undefined;
    let wanted: string | undefined;
    let committer: Promise<void> | undefined;
    let committedAny = false;

    const commitTo = (offset: string): void => {
      committedAny = true;
      if (this.deferCommit(batch.topic, batch.partition, offset)) return;
      wanted = offset;
      if (committer) return;
      committer = Promise.resolve().then(async () => {
        try {
          while (wanted !== undefined) {
            const next = wanted;
            wanted = undefined;
            await payload.commitOffsetsIfNecessary({
              topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: next }] }],
            });
          }
        } catch (error) {
          failure ??= { error };
          stopped = true;
          wanted = undefined;
        } finally {
          committer = undefined;
        }
      });
    };
    const advance = (): void => {
      let last: string | undefined;
      while (started.length > 0 && started[0].done) last = started.shift()?.offset;
      if (last === undefined) return;
      payload.resolveOffset(last);
      commitTo((BigInt(last) + 1n).toString());
    };
    // See handleWithRetry: a group with no committed offset must not skip the failing message.
    const pin = async (): Promise<void> => {
      if (!committedAny && started.length > 0) commitTo(started[0].offset);
    };

    for (const message of batch.messages) {
      while (inFlight.size >= limit && !stopped) await Promise.race(inFlight);
      if (stopped || this.mustStop(payload)) break;
      // What is left of a batch that ends here is fetched again after resume, from the first message not handled.
      if (this.paused.has(batch.topic) && !(await this.admitted(batch.topic, payload))) break;
      const entry = { offset: message.offset, done: false };
      started.push(entry);
      const key = message.key?.toString('utf8') ?? '';
      const task = (tailByKey.get(key) ?? Promise.resolve())
        .then(() => (stopped || this.mustStop(payload) ? false : this.handleWithRetry(batch, message, payload, pin)))
        .then(
          (handled) => {
            if (!handled) {
              stopped = true;
              return;
            }
            entry.done = true;
            advance();
          },
          (error: unknown) => {
            failure ??= { error };
            stopped = true;
          },
        );
      tailByKey.set(key, task);
      inFlight.add(task);
      void task.then(() => {
        inFlight.delete(task);
        if (tailByKey.get(key) === task) tailByKey.delete(key);
      });
    }
    await Promise.all(inFlight);
    while (committer) await committer;
    if (failure) throw failure.error;
  }

  /** Retries the same message (or group from `raw` on) until it succeeds; `false` when the member must stop first. */
  private async handleWithRetry(
    batch: Batch,
    raw: KafkaMessage,
    payload: EachBatchPayload,
    pin: () => Promise<void> = async () => {
      if (!this.commits) return;
      this.deferredCommits.delete(partitionKey(batch.topic, batch.partition));
      this.committedOnce.add(partitionKey(batch.topic, batch.partition));
      return payload.commitOffsetsIfNecessary({
        topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: raw.offset }] }],
      });
    },
    handle: () => Promise<void> = () => this.options.handler(toQueueMessage(batch, raw)),
  ): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.withHeartbeats(payload, handle);
        return true;
      } catch (error) {
        if (this.mustStop(payload)) {
          // The member is stopping (closed, or its partitions are moving): the message stays
          // uncommitted for the next member, and a failure of a handler given up on is not news.
          if (attempt === 1) await pin();
          return false;
        }
        const delayMs = retryDelayMs(attempt, this.options.retry);
        this.logger.warn(
          {
            topic: batch.topic,
            partition: batch.partition,
            offset: raw.offset,
            groupId: this.options.groupId,
            attempt,
            retryInMs: delayMs,
            error: describeError(error),
          },
          'queue handler failed; the message will be retried',
        );
        if (attempt === 1) {
          // Pin the group's position on this message: a group that has never
          // committed on this partition would otherwise start a new member at the
          // latest offset and skip it.
          await pin();
        }
        // Sleep in heartbeat-sized steps so a long backoff does not look like a dead member.
        const wakeAt = Date.now() + delayMs;
        for (let left = delayMs; left > 0; left = wakeAt - Date.now()) {
          if (this.mustStop(payload)) return false;
          await sleepUnlessAborted(Math.min(left, this.heartbeatIntervalMs), this.abort.signal);
          if (this.mustStop(payload)) return false;
          // Throws when the group rebalances: kafkajs rejoins and the message comes back uncommitted.
          await payload.heartbeat();
        }
        if (this.mustStop(payload)) return false;
      }
    }
  }

  /** kafkajs heartbeats only between messages; keep the membership alive during a long handler. */
  private async withHeartbeats(payload: EachBatchPayload, handle: () => Promise<void>): Promise<void> {
    const timer = setInterval(() => {
      // A failed heartbeat (rebalance) surfaces again at the next heartbeat after the handler.
      payload.heartbeat().catch(() => undefined);
    }, this.heartbeatIntervalMs);
    try {
      await handle();
    } finally {
      clearInterval(timer);
    }
  }
}

/** Promise.all that waits for every promise to settle before it rejects with the first failure. */
async function allSettledOrThrow<T extends readonly unknown[]>(promises: { readonly [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/** Approximate size of a record on the wire. */
function recordBytes(record: QueueRecord): number {
  let size = RECORD_OVERHEAD_BYTES + Buffer.byteLength(record.key ?? '') + record.value.length;
  for (const [name, value] of Object.entries(record.headers ?? {})) size += Buffer.byteLength(name) + Buffer.byteLength(value);
  return size;
}

/** Consecutive groups of records, each within MAX_RECORD_BYTES; a single record beyond it is refused. */
function recordChunks(topic: string, records: QueueRecord[]): Array<{ records: QueueRecord[]; sizeBytes: number }> {
  const chunks: Array<{ records: QueueRecord[]; sizeBytes: number }> = [];
  let current: { records: QueueRecord[]; sizeBytes: number } | undefined;
  for (const record of records) {
    const size = recordBytes(record);
    if (size > MAX_RECORD_BYTES) throw new RecordTooLargeError(topic, size, MAX_RECORD_BYTES);
    if (!current || current.sizeBytes + size > MAX_RECORD_BYTES) {
      current = { records: [], sizeBytes: 0 };
      chunks.push(current);
    }
    current.records.push(record);
    current.sizeBytes += size;
  }
  return chunks;
}

function partitionKey(topic: string, partition: number): string {
  return `${topic}|${partition}`;
}

function assertConcurrency(value: number | undefined, setting: string): void {
  if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
    throw new QueueConfigError(`${setting} must be a positive integer, got ${value}`);
  }
}

/** A fetch held longer than a heartbeat interval would keep the member from heartbeating (kafkajs beats between fetches). */
function assertBatchWait(value: number | undefined, heartbeatIntervalMs: number): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < 0) {
    throw new QueueConfigError(`batchWaitMs must be a non-negative integer, got ${value}`);
  }
  if (value > heartbeatIntervalMs) {
    throw new QueueConfigError(`batchWaitMs must be at most the heartbeat interval (${heartbeatIntervalMs} ms), got ${value}`);
  }
}

function toQueueMessage(batch: Batch, raw: KafkaMessage): QueueMessage {
  return {
    topic: batch.topic,
    partition: batch.partition,
    offset: raw.offset,
    key: raw.key?.toString('utf8') ?? '',
    value: raw.value ?? Buffer.alloc(0),
    headers: headersAsStrings(raw.headers),
  };
}

function headersAsStrings(headers: IHeaders | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    // Our producers send one string per header; a repeated header from elsewhere is joined.
    result[name] = Array.isArray(value) ? value.map((part) => part.toString()).join(',') : value.toString();
  }
  return result;
}

/** Errors a broker answers about a topic it does not know yet, right after its creation. */
const TRANSIENT_TOPIC_ERRORS: ReadonlySet<string> = new Set([
  'UNKNOWN_TOPIC_OR_PARTITION',
  'LEADER_NOT_AVAILABLE',
  'NOT_LEADER_FOR_PARTITION',
  'NOT_LEADER_OR_FOLLOWER',
]);
/** How long createTopics waits for new topics to become usable. */
const TOPIC_READY_TIMEOUT_MS = 30_000;

/** kafkajs reports broker errors with a `type`, sometimes in `errors[]` or behind `cause`/`originalError`. */
function errorTypes(error: unknown, seen = new Set<unknown>()): string[] {
  if (typeof error !== 'object' || error === null || seen.has(error)) return [];
  seen.add(error);
  const candidate = error as { type?: unknown; errors?: unknown; cause?: unknown; originalError?: unknown };
  const own = typeof candidate.type === 'string' ? [candidate.type] : [];
  const nested = [...(Array.isArray(candidate.errors) ? candidate.errors : []), candidate.cause, candidate.originalError].flatMap(
    (inner) => errorTypes(inner, seen),
  );
  return [...own, ...nested];
}

function hasErrorType(error: unknown, type: string): boolean {
  return errorTypes(error).includes(type);
}

function allErrorsOfType(error: unknown, type: string): boolean {
  const types = errorTypes(error);
  return types.length > 0 && types.every((candidate) => candidate === type);
}
