/**
 * The queue port: what every role needs from a message queue. Delivery is at
 * least once: a handler's message is committed only after the handler resolves,
 * so consumers must be idempotent on a message id.
 */
export interface QueueRecord {
  /** Partitioning key: every record with the same key is handled in order. */
  key: string;
  value: Buffer;
  headers?: Record<string, string>;
}

export interface QueueMessage extends QueueRecord {
  topic: string;
  partition: number;
  offset: string;
  headers: Record<string, string>;
}

export type MessageHandler = (message: QueueMessage) => Promise<void>;

export interface TopicSpec {
  topic: string;
  partitions?: number;
}

export interface SubscribeOptions {
  /** Consumers sharing a group id split the partitions of the topics between them. */
  groupId: string;
  topics: string[];
  /** Where a group with no committed offset starts; default: the latest message. */
  fromBeginning?: boolean;
  handler: MessageHandler;
}

export interface QueueSubscription {
  pause(topic: string): void;
  resume(topic: string): void;
  isPaused(topic: string): boolean;
  close(): Promise<void>;
}

export interface QueuePort {
  createTopics(topics: TopicSpec[]): Promise<void>;
  publish(topic: string, records: QueueRecord[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<QueueSubscription>;
  /** Resolves when the queue answers; rejects otherwise (readiness checks). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
