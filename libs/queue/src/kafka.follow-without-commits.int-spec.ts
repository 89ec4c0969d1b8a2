import { randomUUID } from 'node:crypto';
import { createKafkaQueue, type KafkaSubscribeOptions } from './kafka/kafka-queue';
import { parseKafkaBrokers } from './kafka/kafka-brokers';
import type { QueueMessage, QueuePort, QueueSubscription } from './queue.port';

// Fails (never skips) when no broker is configured: tools/jest/int-env.js fills
// KAFKA_BROKERS from the dev services (`npm run services:up`).
const brokers = parseKafkaBrokers(process.env['KAFKA_BROKERS']);

async function until(condition: () => boolean, what: string, withinMs: number): Promise<void> {
  const giveUpAt = Date.now() + withinMs;
  while (!condition()) {
    if (Date.now() > giveUpAt) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The api follows execution updates in a group of its own per process, which nobody
 * reads the offsets of again: with `commitOffsets: false` it gets every message and
 * sends no commit, so the group stays at "never committed".
 */
describe('kafka queue: a member that never commits', () => {
  const run = randomUUID().slice(0, 8);
  const topic = `lanner.follow-without-commits.${run}`;
  let queue: QueuePort;
  const subscriptions: QueueSubscription[] = [];

  beforeAll(async () => {
    queue = createKafkaQueue({
      brokers,
      clientId: 'lanner-follow-without-commits',
      consumer: { sessionTimeoutMs: 10_000, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 10_000, maxWaitTimeMs: 500 },
    });
    await queue.createTopics([{ topic, partitions: 2 }]);
  });

  afterAll(async () => {
    await Promise.all(subscriptions.map((subscription) => subscription.close()));
    await queue.deleteTopics([topic]).catch(() => undefined);
    await queue.close();
  });

  it('delivers every message, in order per key, and leaves the group without a committed offset', async () => {
    const groupId = `lanner-follow-without-commits-${run}`;
    const received: QueueMessage[] = [];
    let failedOnce = false;
    const options: KafkaSubscribeOptions = {
      groupId,
      topics: [topic],
      fromBeginning: false,
      commitOffsets: false,
      retry: { initialDelayMs: 20, maxDelayMs: 20 },
      handler: async (message) => {
        // A failing message is still retried, not skipped.
        if (message.value.toString('utf8') === 'a-2' && !failedOnce) {
          failedOnce = true;
          throw new Error('passing failure');
        }
        received.push(message);
      },
    };
    const subscription = await queue.subscribe(options);
    subscriptions.push(subscription);
    for (let index = 0; index < 5; index++) {
      await queue.publish(topic, [
        { key: 'a', value: Buffer.from(`a-${index}`) },
        { key: 'b', value: Buffer.from(`b-${index}`) },
      ]);
    }
    await until(() => received.length === 10, 'the ten messages', 20_000);
    const values = (key: string): string[] =>
      received.filter((message) => message.key === key).map((message) => message.value.toString('utf8'));
    expect(values('a')).toEqual(['a-0', 'a-1', 'a-2', 'a-3', 'a-4']);
    expect(values('b')).toEqual(['b-0', 'b-1', 'b-2', 'b-3', 'b-4']);
    expect(failedOnce).toBe(true);

    await subscription.close();
    // Nothing was committed, also not on close: the group lags by everything on the topic.
    expect((await queue.consumerLag(groupId, [topic])).get(topic)).toBe(10);
  }, 60_000);
});
