/**
 * The queue port: what every role needs from a message queue. Both adapters
 * (Kafka, in-process) implement exactly these semantics; the contract suite in
 * `testing/queue-contract.ts` is the executable definition.
 *
 * Delivery is AT LEAST ONCE: a message is committed only after its handler
 * resolves, so a crash, a rebalance or a close during a retry delivers it again.
 * Every consumer must therefore be idempotent on a message id.
 *
 * Topics are never created implicitly: create them with `createTopics` before
 * publishing or subscribing (an unknown topic fails with `UnknownTopicError`).
 */
export interface QueueRecord {
  /**
   * Partitioning key. Records with the same key land on the same partition and
   * are handled in the order they were published (within one `publish` call, and
   * across calls that the publisher awaits one after the other).
   */
  key: string;
  value: Buffer;
  /** Carried as strings (correlation ids, schema versions). */
  headers?: Record<string, string>;
}

/** A record as a handler receives it. */
export interface QueueMessage extends QueueRecord {
  topic: string;
  partition: number;
  /** Position in the partition, a decimal string (Kafka offsets exceed 2^53). */
  offset: string;
  headers: Record<string, string>;
}

/**
 * Handles one message. Resolving commits the message. Throwing (or rejecting)
 * leaves it uncommitted: the same member retries the SAME message with
 * exponential backoff until it succeeds, the partition moves to another member,
 * or the subscription closes. The message is never skipped, so later messages of
 * its partition wait behind it (order per key is kept). A handler must therefore
 * resolve for messages it can never process (bad payload: log it, dead-letter it,
 * resolve) and throw only for failures worth retrying.
 */
export type MessageHandler = (message: QueueMessage) => Promise<void>;

/**
 * Handles consecutive messages of ONE partition together, in offset order.
 * Resolving commits them all; throwing leaves them all uncommitted and the same
 * member retries the same messages together (the `retry` backoff), as for one
 * message. A batch that was not handled is delivered again whole, so a batch
 * handler must recognise messages it has handled before (at least once).
 */
export type BatchHandler = (messages: readonly QueueMessage[]) => Promise<void>;

export interface TopicSpec {
  /** Kafka topic rules: 1-249 characters of `[a-zA-Z0-9._-]`. */
  topic: string;
  /** Partition count; default: the adapter's default. Ignored when the topic exists. */
  partitions?: number;
}

export interface RetryBackoff {
  /** Delay before the first retry of a failed message; default 500 ms. */
  initialDelayMs?: number;
  /** The delay doubles per attempt up to this cap; default 30 s. */
  maxDelayMs?: number;
}

export interface SubscribeOptions {
  /**
   * Members sharing a group id split the partitions of the topics between them
   * (each message is handled by one member of the group); every group gets every
   * message.
   */
  groupId: string;
  topics: string[];
  /**
   * Where a group with no committed offset on a partition starts: the first
   * retained message (`true`) or the end of the partition (default).
   */
  fromBeginning?: boolean;
  handler: MessageHandler;
  /**
   * When given, the member hands what a partition has waiting (up to
   * `maxBatchMessages` messages at a time) to this handler instead of to
   * `handler`, which is then not called by the adapter.
   */
  batchHandler?: BatchHandler;
  /** The most messages of one batch; default 100. */
  maxBatchMessages?: number;
  /**
   * With `batchHandler`: how long a batch may wait for more messages before it
   * is handed over while fewer than `maxBatchMessages` are waiting, in ms;
   * default 0 (what is there goes at once). A few hundred ms make fewer, larger
   * batches when messages trickle in, each handled that much later. A close or
   * a rebalance cuts the wait short. A non-negative integer (the Kafka adapter,
   * which heartbeats between fetches, also refuses more than its heartbeat
   * interval).
   */
  batchWaitMs?: number;
  /**
   * Called each time this member's share of the partitions may have changed (it
   * joined, or the group rebalanced), before it handles a message of the new
   * share. What a member keeps about the messages of its partitions may be
   * stale from here on: another member may have handled some of them.
   */
  onAssignment?: () => void;
  /** Handlers of this member running at the same time (see SubscribeConcurrency); default one at a time. */
  concurrency?: SubscribeConcurrency;
  /** Backoff between retries of a message whose handler threw. */
  retry?: RetryBackoff;
  /**
   * Aborting it closes the member at any time, also while `subscribe` is still
   * joining its group (handlers may already run then): from the abort on, a
   * handler that throws is given up on quietly, as after `close()`. A
   * `subscribe` still starting then rejects with `SubscribeAborted`.
   */
  signal?: AbortSignal;
}

/**
 * How many handlers of one member run at the same time, for a handler whose calls
 * for different keys are independent (`handler` only: a `batchHandler` gets one
 * batch of a partition at a time). Either setting is a positive integer.
 */
export interface SubscribeConcurrency {
  /**
   * Partitions handled side by side; default 1 on Kafka (one message at a time for
   * the whole member). The in-process queue always handles every partition side by side.
   */
  partitionsConsumedConcurrently?: number;
  /**
   * Messages of one partition handled at the same time; default 1. Above 1,
   * messages with the same key still run one after the other in order, messages
   * with different keys overlap, and the partition's offset is committed only up
   * to the first message whose handler has not resolved yet, so a crash or a
   * rebalance redelivers every message not handled, never skips one.
   */
  messagesPerPartition?: number;
}

/**
 * One member of a consumer group. `subscribe` resolves once the member has
 * joined its group and has been given its partitions.
 */
export interface QueueSubscription {
  /**
   * Stops delivery of `topic` to this member until `resume(topic)`: after this
   * returns no handler call starts for that topic (a running one finishes and is
   * committed). Other topics keep flowing. Controllers pause a worker-queue topic
   * while their workers have no free slot. Throws for a topic not subscribed.
   */
  pause(topic: string): void;
  /** Delivers again, starting with what was held while paused. */
  resume(topic: string): void;
  isPaused(topic: string): boolean;
  /**
   * Leaves the group gracefully: no new handler call starts, running handlers
   * finish and are committed, a message still in retry is abandoned uncommitted
   * (the next member of the group receives it). Idempotent.
   */
  close(): Promise<void>;
}

export interface QueuePort {
  /** Idempotent: existing topics are left as they are. Resolves when the topics are usable. */
  createTopics(topics: TopicSpec[]): Promise<void>;
  /** Idempotent: unknown topics are ignored. */
  deleteTopics(topics: string[]): Promise<void>;
  /** Resolves once every record is durably stored (acknowledged by all in-sync replicas on Kafka). */
  publish(topic: string, records: QueueRecord[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<QueueSubscription>;
  /**
   * How many records of each topic the consumer group has not consumed yet (its
   * lag), keyed by topic name: per partition, the end offset minus the group's
   * committed offset, summed over the topic's partitions. A partition the group
   * has never committed on counts from its first retained record (as a group
   * subscribed `fromBeginning` would start), so a group that never consumed the
   * topic lags by everything retained. A committed offset below the first retained
   * record counts from that record; the answer is never negative.
   *
   * Reading the lag does not join the group or move its offsets. An unknown topic
   * fails with `UnknownTopicError` (as `publish` and `subscribe` do): a caller that
   * reads the lag of topics that may not exist yet treats that as "nothing waits".
   * An empty `topics` answers an empty map.
   */
  consumerLag(groupId: string, topics: readonly string[]): Promise<ReadonlyMap<string, number>>;
  /** Resolves when the queue answers; rejects otherwise (readiness checks). */
  ping(): Promise<void>;
  /** Closes every subscription (as `QueueSubscription.close`), then the connections. Idempotent. */
  close(): Promise<void>;
}
