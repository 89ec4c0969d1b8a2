import { randomUUID } from 'node:crypto';
import { createKafkaQueue } from './kafka/kafka-queue';
import { parseKafkaBrokers } from './kafka/kafka-brokers';
import { UnknownTopicError } from './queue.errors';
import type { QueuePort } from './queue.port';

// Fails (never skips) when no broker is configured: tools/jest/int-env.js fills
// KAFKA_BROKERS from the dev services (`npm run services:up`).
const brokers = parseKafkaBrokers(process.env['KAFKA_BROKERS']);

// A controller reads the lag of every worker queue for as long as it runs; an
// operator deletes a worker queue through the API, whose process deletes the topic.
describe('kafka queue: lag reads go on after another process deletes a topic they read', () => {
  const run = randomUUID().slice(0, 8);
  const deleted = `lag-deleted.${run}.etl`;
  const kept = `lag-deleted.${run}.gpu`;
  const added = `lag-deleted.${run}.arm`;
  const group = `lanner-lag-deleted-${run}`;
  let controller: QueuePort;
  let api: QueuePort;
  let executor: QueuePort;

  beforeAll(() => {
    controller = createKafkaQueue({ brokers, clientId: 'lanner-lag-reader' });
    api = createKafkaQueue({ brokers, clientId: 'lanner-lag-api' });
    executor = createKafkaQueue({ brokers, clientId: 'lanner-lag-executor' });
  });

  afterAll(async () => {
    await api.deleteTopics([deleted, kept, added]).catch(() => undefined);
    await Promise.all([controller.close(), api.close(), executor.close()]);
  });

  it('reads the lag of the remaining and of new topics, and names the deleted one', async () => {
    await api.createTopics([deleted, kept].map((topic) => ({ topic, partitions: 2 })));
    await executor.publish(deleted, [{ key: 'task-run-1', value: Buffer.from('job') }]);
    await executor.publish(kept, [
      { key: 'task-run-2', value: Buffer.from('job') },
      { key: 'task-run-3', value: Buffer.from('job') },
    ]);
    expect(await controller.consumerLag(group, [deleted])).toEqual(new Map([[deleted, 1]]));
    expect(await controller.consumerLag(group, [kept])).toEqual(new Map([[kept, 2]]));

    await api.deleteTopics([deleted]);
    await api.createTopics([{ topic: added, partitions: 3 }]);
    await api.publish(added, [{ key: 'task-run-4', value: Buffer.from('job') }]);

    // A topic the reader has not seen yet makes kafkajs refresh what it knows about every topic it has read.
    expect(await controller.consumerLag(group, [added])).toEqual(new Map([[added, 1]]));
    expect(await controller.consumerLag(group, [kept])).toEqual(new Map([[kept, 2]]));
    await expect(controller.consumerLag(group, [deleted])).rejects.toThrow(UnknownTopicError);
    await expect(controller.ping()).resolves.toBeUndefined();
  });
});
