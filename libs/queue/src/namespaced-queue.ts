import type { BatchHandler, QueueMessage, QueuePort, QueueSubscription, SubscribeOptions, TopicSpec } from './queue.port';
import { UnknownTopicError } from './queue.errors';

/**
 * A view of a queue where every topic name and consumer group id carries
 * `namespace` as a prefix, invisible to the roles: they publish to and read
 * `lanner.executor`, the broker holds `<namespace>lanner.executor`. Several
 * Lanner clusters (or test runs) can then share one Kafka cluster without
 * reading each other's messages or joining each other's consumer groups.
 */
export function namespacedQueue(queue: QueuePort, namespace: string): QueuePort {
  if (namespace === '') return queue;
  const outer = (topic: string) => `${namespace}${topic}`;
  const inner = (topic: string) => (topic.startsWith(namespace) ? topic.slice(namespace.length) : topic);
  return {
    createTopics: (topics: TopicSpec[]) => queue.createTopics(topics.map((spec) => ({ ...spec, topic: outer(spec.topic) }))),
    deleteTopics: (topics: string[]) => queue.deleteTopics(topics.map(outer)),
    publish: (topic, records) => queue.publish(outer(topic), records),
    async subscribe(options: SubscribeOptions): Promise<QueueSubscription> {
      const subscription = await queue.subscribe({
        ...options,
        groupId: outer(options.groupId),
        topics: options.topics.map(outer),
        handler: (message: QueueMessage) => options.handler({ ...message, topic: inner(message.topic) }),
        ...(options.batchHandler !== undefined
          ? {
              batchHandler: (messages: readonly QueueMessage[]) =>
                (options.batchHandler as BatchHandler)(messages.map((message) => ({ ...message, topic: inner(message.topic) }))),
            }
          : {}),
      });
      return {
        pause: (topic) => subscription.pause(outer(topic)),
        resume: (topic) => subscription.resume(outer(topic)),
        isPaused: (topic) => subscription.isPaused(outer(topic)),
        close: () => subscription.close(),
      };
    },
    async consumerLag(groupId: string, topics: readonly string[]): Promise<ReadonlyMap<string, number>> {
      const lag = await queue.consumerLag(outer(groupId), topics.map(outer)).catch((error: unknown) => {
        // The caller named the topic without the namespace: so does the error.
        throw error instanceof UnknownTopicError ? new UnknownTopicError(inner(error.topic)) : error;
      });
      return new Map([...lag].map(([topic, records]) => [inner(topic), records]));
    },
    ping: () => queue.ping(),
    close: () => queue.close(),
  };
}
