import { QueueConfigError } from '../queue.errors';
import { createKafkaQueue, type KafkaSubscribeOptions } from './kafka-queue';

describe('createKafkaQueue consumer concurrency', () => {
  const base = { brokers: ['127.0.0.1:9092'], clientId: 'lanner-test' };

  it.each([0, -1, 1.5])('refuses %p partitions handled at the same time, naming the setting', (value) => {
    expect(() => createKafkaQueue({ ...base, consumer: { partitionsConsumedConcurrently: value } })).toThrow(QueueConfigError);
    expect(() => createKafkaQueue({ ...base, consumer: { partitionsConsumedConcurrently: value } })).toThrow(
      /partitionsConsumedConcurrently/,
    );
  });

  it.each([-1, 2.5])('refuses a commit interval of %p ms for a subscription, naming it, before connecting', async (value) => {
    const queue = createKafkaQueue(base);
    const options: KafkaSubscribeOptions = {
      groupId: 'lanner-test',
      topics: ['lanner.test'],
      handler: async () => undefined,
      commitIntervalMs: value,
    };
    await expect(queue.subscribe(options)).rejects.toThrow(QueueConfigError);
    await expect(queue.subscribe(options)).rejects.toThrow(/commitIntervalMs must be a non-negative integer/);
    await queue.close();
  });

  it.each([
    [-1, /batchWaitMs must be a non-negative integer/],
    [0.5, /batchWaitMs must be a non-negative integer/],
    [3_001, /batchWaitMs must be at most the heartbeat interval \(3000 ms\)/],
  ])('refuses a batch wait of %p ms, naming it, before connecting', async (value, message) => {
    const queue = createKafkaQueue(base);
    const options: KafkaSubscribeOptions = {
      groupId: 'lanner-test',
      topics: ['lanner.test'],
      handler: async () => undefined,
      batchHandler: async () => undefined,
      batchWaitMs: value,
    };
    await expect(queue.subscribe(options)).rejects.toThrow(QueueConfigError);
    await expect(queue.subscribe(options)).rejects.toThrow(message);
    await queue.close();
  });

  it('accepts a positive count without connecting to a broker', async () => {
    const queue = createKafkaQueue({ ...base, consumer: { partitionsConsumedConcurrently: 3 } });
    await queue.close();
  });
});
