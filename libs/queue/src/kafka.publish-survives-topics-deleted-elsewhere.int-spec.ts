import { randomUUID } from 'node:crypto';
import { createKafkaQueue } from './kafka/kafka-queue';
import { parseKafkaBrokers } from './kafka/kafka-brokers';
import { UnknownTopicError } from './queue.errors';
import type { QueuePort, QueueMessage } from './queue.port';

// Fails (never skips) when no broker is configured: tools/jest/int-env.js fills
// KAFKA_BROKERS from the dev services (`npm run services:up`).
const brokers = parseKafkaBrokers(process.env['KAFKA_BROKERS']);

// The executor publishes jobs to every worker queue's topic; an operator deletes a
// worker queue through the API (whose process deletes the topic) and creates another.
describe('kafka queue: publishing goes on after another process deletes a topic it published to', () => {
  const run = randomUUID().slice(0, 8);
  const deleted = `publish-deleted.${run}.etl`;
  const kept = `publish-deleted.${run}.gpu`;
  const added = `publish-deleted.${run}.arm`;
  let api: QueuePort;
  let executor: QueuePort;
  let reader: QueuePort;

  beforeAll(() => {
    api = createKafkaQueue({ brokers, clientId: 'lanner-publish-api' });
    executor = createKafkaQueue({ brokers, clientId: 'lanner-publish-executor' });
    reader = createKafkaQueue({
      brokers,
      clientId: 'lanner-publish-reader',
      consumer: { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 5_000, maxWaitTimeMs: 250 },
    });
  });

  afterAll(async () => {
    await api.deleteTopics([deleted, kept, added]).catch(() => undefined);
    await Promise.all([api.close(), executor.close(), reader.close()]);
  });

  it('a new topic and a kept one take publishes, a deleted one is named', async () => {
    await api.createTopics([deleted, kept].map((topic) => ({ topic, partitions: 2 })));
    await executor.publish(deleted, [{ key: 'task-run-1', value: Buffer.from('job-1') }]);
    await executor.publish(kept, [{ key: 'task-run-2', value: Buffer.from('job-2') }]);

    await api.deleteTopics([deleted]);
    await api.createTopics([{ topic: added, partitions: 3 }]);

    // Without a new producer, this publish fails as if the new topic did not exist.
    await executor.publish(added, [{ key: 'task-run-3', value: Buffer.from('job-3') }]);
    await executor.publish(kept, [{ key: 'task-run-4', value: Buffer.from('job-4') }]);
    await expect(executor.publish(deleted, [{ key: 'task-run-5', value: Buffer.from('job-5') }])).rejects.toThrow(
      UnknownTopicError,
    );

    const received: string[] = [];
    const all = new Promise<void>((resolve) => {
      void reader.subscribe({
        groupId: `lanner-publish-deleted-${run}`,
        topics: [added, kept],
        fromBeginning: true,
        handler: async (message: QueueMessage) => {
          received.push(message.value.toString('utf8'));
          if (received.length === 3) resolve();
        },
      });
    });
    await all;
    expect(received.sort()).toEqual(['job-2', 'job-3', 'job-4']);
  }, 90_000);
});
