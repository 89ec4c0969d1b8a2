import { randomBytes, randomUUID } from 'node:crypto';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { createKafkaQueue, MAX_RECORD_BYTES, RecordTooLargeError } from './kafka/kafka-queue';
import { parseKafkaBrokers } from './kafka/kafka-brokers';
import type { QueueMessage, QueuePort } from './queue.port';

// Fails (never skips) when no broker is configured: tools/jest/int-env.js fills
// KAFKA_BROKERS from the dev services (`npm run services:up`).
const brokers = parseKafkaBrokers(process.env['KAFKA_BROKERS']);
const MiB = 1024 * 1024;

describe('kafka queue: jobs and results up to 4 MiB', () => {
  const run = randomUUID().slice(0, 8);
  const created: string[] = [];
  let queue: QueuePort;

  beforeAll(() => {
    queue = createKafkaQueue({
      brokers,
      clientId: 'lanner-large-records',
      consumer: { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 5_000, maxWaitTimeMs: 250 },
    });
  });

  afterAll(async () => {
    await queue.deleteTopics(created).catch(() => undefined);
    await queue.close();
  });

  async function newTopic(name: string): Promise<string> {
    const topic = `large-records.${run}.${name}`;
    created.push(topic);
    await queue.createTopics([{ topic, partitions: 1 }]);
    return topic;
  }

  function inbox(expected: number): { handler: (message: QueueMessage) => Promise<void>; all: Promise<QueueMessage[]> } {
    const received: QueueMessage[] = [];
    let done: (messages: QueueMessage[]) => void = () => undefined;
    const all = new Promise<QueueMessage[]>((resolve) => (done = resolve));
    return {
      all,
      handler: async (message) => {
        received.push(message);
        if (received.length === expected) done(received);
      },
    };
  }

  it('delivers a 3 MiB record through a topic made by createTopics', async () => {
    const topic = await newTopic('three-mib');
    const value = randomBytes(3 * MiB);
    const box = inbox(1);
    const subscription = await queue.subscribe({
      groupId: `large-records.${run}.one`,
      topics: [topic],
      fromBeginning: true,
      handler: box.handler,
    });
    try {
      await queue.publish(topic, [{ key: 'job-1', value, headers: { type: 'job' } }]);
      const [message] = await box.all;
      expect(message.key).toBe('job-1');
      expect(message.headers['type']).toBe('job');
      expect(message.value.length).toBe(value.length);
      expect(message.value.equals(value)).toBe(true);
    } finally {
      await subscription.close();
    }
  });

  it('delivers two 3 MiB records published together, in order', async () => {
    const topic = await newTopic('two-records');
    const first = randomBytes(3 * MiB);
    const second = randomBytes(3 * MiB);
    const box = inbox(2);
    const subscription = await queue.subscribe({
      groupId: `large-records.${run}.two`,
      topics: [topic],
      fromBeginning: true,
      handler: box.handler,
    });
    try {
      await queue.publish(topic, [
        { key: 'same', value: first },
        { key: 'same', value: second },
      ]);
      const messages = await box.all;
      expect(messages.map((message) => message.value.equals(first))).toEqual([true, false]);
      expect(messages[1].value.equals(second)).toBe(true);
    } finally {
      await subscription.close();
    }
  });

  it('refuses a 6 MiB record with an error naming the topic and the size', async () => {
    const topic = await newTopic('six-mib');
    const publishing = queue.publish(topic, [{ key: 'job-2', value: Buffer.alloc(6 * MiB, 1) }]);
    await expect(publishing).rejects.toBeInstanceOf(RecordTooLargeError);
    await expect(publishing).rejects.toThrow(
      new RegExp(
        `^A record of ${6 * MiB + 128 + 'job-2'.length} bytes is larger than topic "${topic.replace(/\./g, '\\.')}" accepts \\(at most ${MAX_RECORD_BYTES} bytes\\)$`,
      ),
    );
  });

  /** A topic Lanner did not create, limited to 1 MiB (the broker's usual default), with a retention of its own. */
  async function topicMadeElsewhere(name: string): Promise<string> {
    const topic = `large-records.${run}.${name}`;
    created.push(topic);
    await withAdmin((admin) =>
      admin.createTopics({
        topics: [
          {
            topic,
            numPartitions: 1,
            configEntries: [
              { name: 'max.message.bytes', value: String(MiB) },
              { name: 'retention.ms', value: '3600000' },
            ],
          },
        ],
        waitForLeaders: true,
      }),
    );
    return topic;
  }

  async function withAdmin<T>(use: (admin: ReturnType<Kafka['admin']>) => Promise<T>): Promise<T> {
    const admin = new Kafka({ clientId: 'lanner-large-records-admin', brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      return await use(admin);
    } finally {
      await admin.disconnect();
    }
  }

  it('raises the limit of a topic that existed before createTopics, keeping its other settings', async () => {
    const topic = await topicMadeElsewhere('existing');
    await queue.createTopics([{ topic }]);
    const { resources } = await withAdmin((admin) =>
      admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }], includeSynonyms: false }),
    );
    const settings = new Map(resources[0].configEntries.map((entry) => [entry.configName, entry.configValue]));
    expect(settings.get('max.message.bytes')).toBe(String(MAX_RECORD_BYTES));
    expect(settings.get('retention.ms')).toBe('3600000');

    const value = randomBytes(3 * MiB);
    const box = inbox(1);
    const subscription = await queue.subscribe({
      groupId: `large-records.${run}.existing`,
      topics: [topic],
      fromBeginning: true,
      handler: box.handler,
    });
    try {
      await queue.publish(topic, [{ key: 'job-4', value }]);
      const [message] = await box.all;
      expect(message.value.equals(value)).toBe(true);
    } finally {
      await subscription.close();
    }
  });

  it('names the topic and the size when a topic made elsewhere has a smaller limit than the record', async () => {
    const topic = await topicMadeElsewhere('small-limit');
    const publishing = queue.publish(topic, [{ key: 'job-3', value: Buffer.alloc(2 * MiB, 1) }]);
    await expect(publishing).rejects.toBeInstanceOf(RecordTooLargeError);
    await expect(publishing).rejects.toThrow(
      `A record of ${2 * MiB + 128 + 'job-3'.length} bytes is larger than topic "${topic}" accepts`,
    );
  });
});
