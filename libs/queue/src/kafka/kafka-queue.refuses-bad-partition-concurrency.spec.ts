import { QueueConfigError } from '../queue.errors';
import { createKafkaQueue } from './kafka-queue';

describe('createKafkaQueue consumer concurrency', () => {
  const base = { brokers: ['127.0.0.1:9092'], clientId: 'lanner-test' };

  it.each([0, -1, 1.5])('refuses %p partitions handled at the same time, naming the setting', (value) => {
    expect(() => createKafkaQueue({ ...base, consumer: { partitionsConsumedConcurrently: value } })).toThrow(QueueConfigError);
    expect(() => createKafkaQueue({ ...base, consumer: { partitionsConsumedConcurrently: value } })).toThrow(/partitionsConsumedConcurrently/);
  });

  it('accepts a positive count without connecting to a broker', async () => {
    const queue = createKafkaQueue({ ...base, consumer: { partitionsConsumedConcurrently: 3 } });
    await queue.close();
  });
});
