import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { createKafkaQueue } from './kafka/kafka-queue';
import { parseKafkaBrokers } from './kafka/kafka-brokers';
import type { QueuePort } from './queue.port';

// Fails (never skips) when no broker is configured: tools/jest/int-env.js fills
// KAFKA_BROKERS from the dev services (`npm run services:up`).
const brokers = parseKafkaBrokers(process.env['KAFKA_BROKERS']);

describe('kafka queue: a topic is usable as soon as createTopics resolves', () => {
  const run = randomUUID().slice(0, 8);
  const created: string[] = [];
  const kafka = new Kafka({ clientId: 'lanner-fresh-topics-check', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  let queue: QueuePort;
  let other: QueuePort;

  beforeAll(async () => {
    queue = createKafkaQueue({ brokers, clientId: 'lanner-fresh-topics' });
    other = createKafkaQueue({ brokers, clientId: 'lanner-fresh-topics-other' });
    await admin.connect();
  });

  afterAll(async () => {
    await queue.deleteTopics(created).catch(() => undefined);
    await Promise.all([queue.close(), other.close(), admin.disconnect()]);
  });

  async function recordsIn(topic: string): Promise<number> {
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.reduce((sum, partition) => sum + Number(partition.high) - Number(partition.low), 0);
  }

  it('creates 30 fresh topics one after the other and publishes to each right away without an error', async () => {
    const topics: string[] = [];
    for (let index = 0; index < 30; index++) {
      const topic = `fresh-topics.${run}.one-by-one-${index}`;
      created.push(topic);
      topics.push(topic);
      await queue.createTopics([{ topic, partitions: 1 + (index % 3) }]);
      await queue.publish(topic, [{ key: `job-${index}`, value: Buffer.from(`payload ${index}`) }]);
    }
    for (const topic of topics) expect(await recordsIn(topic)).toBe(1);
  }, 120_000);

  it('two processes creating the same fresh topics at once can both publish to them at once', async () => {
    const topics = Array.from({ length: 12 }, (_, index) => `fresh-topics.${run}.race-${index}`);
    created.push(...topics);
    const specs = topics.map((topic) => ({ topic, partitions: 2 }));
    await Promise.all([queue.createTopics(specs), other.createTopics(specs)]);
    await Promise.all(
      topics.flatMap((topic) => [
        queue.publish(topic, [{ key: 'a', value: Buffer.from('from the first process') }]),
        other.publish(topic, [{ key: 'b', value: Buffer.from('from the second process') }]),
      ]),
    );
    for (const topic of topics) expect(await recordsIn(topic)).toBe(2);
  }, 120_000);

  it('createTopics on topics that already exist resolves at once and leaves them usable', async () => {
    const topic = `fresh-topics.${run}.again`;
    created.push(topic);
    await queue.createTopics([{ topic, partitions: 1 }]);
    const startedAt = Date.now();
    await other.createTopics([{ topic, partitions: 1 }]);
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    await other.publish(topic, [{ key: 'k', value: Buffer.from('v') }]);
    expect(await recordsIn(topic)).toBe(1);
  });
});
