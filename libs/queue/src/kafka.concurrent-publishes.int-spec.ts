import { randomUUID } from 'node:crypto';
import { createKafkaQueue } from './kafka/kafka-queue';
import { parseKafkaBrokers } from './kafka/kafka-brokers';
import { UnknownTopicError } from './queue.errors';
import type { QueueMessage, QueuePort } from './queue.port';

// Fails (never skips) when no broker is configured: tools/jest/int-env.js fills
// KAFKA_BROKERS from the dev services (`npm run services:up`).
const brokers = parseKafkaBrokers(process.env['KAFKA_BROKERS']);

describe('kafka queue: many publishes at once (a controller relaying job events)', () => {
  const run = randomUUID().slice(0, 8);
  const topics = [`concurrent.${run}.a`, `concurrent.${run}.b`];
  let queue: QueuePort;

  beforeAll(async () => {
    queue = createKafkaQueue({
      brokers,
      clientId: 'lanner-concurrent-publishes',
      consumer: { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 5_000, maxWaitTimeMs: 250 },
    });
    await queue.createTopics(topics.map((topic) => ({ topic, partitions: 3 })));
  });

  afterAll(async () => {
    await queue.deleteTopics(topics).catch(() => undefined);
    await queue.close();
  });

  it('delivers every record of 300 concurrent publishes, each key in publish order, and fails only the publish to a missing topic', async () => {
    const received: QueueMessage[] = [];
    let done: () => void = () => undefined;
    const all = new Promise<void>((resolve) => (done = resolve));
    const subscription = await queue.subscribe({
      groupId: `concurrent-${run}`,
      topics,
      fromBeginning: true,
      handler: async (message) => {
        received.push(message);
        if (received.length === 300) done();
      },
    });
    try {
      const publishes = Array.from({ length: 300 }, (_, index) =>
        queue.publish(topics[index % 2], [{ key: `key-${index % 7}`, value: Buffer.from(String(index)) }]),
      );
      const missing = queue.publish(`concurrent.${run}.never-created`, [{ key: 'k', value: Buffer.from('lost?') }]);
      let publishedBeforeMissingFailed = 0;
      void Promise.allSettled(publishes).then(() => (publishedBeforeMissingFailed = publishes.length));
      const missingOutcome = await Promise.allSettled([missing]);
      // The producer retries an unknown topic for seconds: the other publishes never wait behind it.
      expect(publishedBeforeMissingFailed).toBe(300);
      const outcomes = [...(await Promise.allSettled(publishes)), ...missingOutcome];

      expect(outcomes.slice(0, 300).every((outcome) => outcome.status === 'fulfilled')).toBe(true);
      expect(outcomes[300]).toMatchObject({ status: 'rejected', reason: expect.any(UnknownTopicError) });
      await all;
      const values = received.map((message) => Number(message.value.toString()));
      // At least once: all 300 arrived (a merged request retried after the missing topic may repeat some).
      expect(new Set(values).size).toBe(300);
      for (const topic of topics) {
        for (let key = 0; key < 7; key++) {
          const order = received
            .filter((message) => message.topic === topic && message.key === `key-${key}`)
            .map((message) => Number(message.value.toString()));
          const firsts = order.filter((value, index) => order.indexOf(value) === index);
          expect(firsts).toEqual([...firsts].sort((x, y) => x - y));
        }
      }
    } finally {
      await subscription.close();
    }
  });
});
