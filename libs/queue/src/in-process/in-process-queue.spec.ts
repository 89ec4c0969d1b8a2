import { InvalidTopicNameError, QueueClosedError, QueueConfigError, UnknownTopicError } from '../queue.errors';
import type { QueueMessage } from '../queue.port';
import { createInProcessQueue } from './in-process-queue';

const activeTimers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('in-process queue', () => {
  it('refuses to publish to or subscribe to a topic that was never created', async () => {
    const queue = createInProcessQueue();
    await expect(queue.publish('lanner.missing', [{ key: 'k', value: Buffer.from('v') }])).rejects.toThrow(UnknownTopicError);
    await expect(queue.subscribe({ groupId: 'g', topics: ['lanner.missing'], handler: async () => undefined })).rejects.toThrow(
      UnknownTopicError,
    );
    await queue.close();
  });

  it('refuses topic names Kafka would refuse, so standalone catches them too', async () => {
    const queue = createInProcessQueue();
    await expect(queue.createTopics([{ topic: 'lanner/worker jobs' }])).rejects.toThrow(InvalidTopicNameError);
    await expect(queue.createTopics([{ topic: 'lanner.jobs', partitions: 0 }])).rejects.toThrow(QueueConfigError);
    await queue.close();
  });

  it('refuses a partition default that is not a positive integer', () => {
    expect(() => createInProcessQueue({ partitions: 0 })).toThrow(QueueConfigError);
  });

  it('closing during a retry backoff returns without waiting it out and leaves no timer behind', async () => {
    const timersBefore = activeTimers();
    const queue = createInProcessQueue({ partitions: 1 });
    await queue.createTopics([{ topic: 'lanner.results' }]);
    let attempts = 0;
    let firstFailure!: () => void;
    const failed = new Promise<void>((resolve) => (firstFailure = resolve));
    await queue.subscribe({
      groupId: 'indexer',
      topics: ['lanner.results'],
      fromBeginning: true,
      retry: { initialDelayMs: 600_000, maxDelayMs: 600_000 },
      handler: async () => {
        attempts += 1;
        firstFailure();
        throw new Error('repository unavailable');
      },
    });
    await queue.publish('lanner.results', [{ key: 'execution-1', value: Buffer.from('r') }]);
    await failed;

    await queue.close();

    expect(attempts).toBe(1);
    expect(activeTimers()).toBe(timersBefore);
    await expect(queue.ping()).rejects.toThrow(QueueClosedError);
  });

  it('refuses a batch wait that is not a non-negative integer, naming it', async () => {
    const queue = createInProcessQueue();
    await queue.createTopics([{ topic: 'lanner.logs' }]);
    for (const batchWaitMs of [-1, 2.5]) {
      await expect(
        queue.subscribe({
          groupId: 'indexer',
          topics: ['lanner.logs'],
          handler: async () => undefined,
          batchHandler: async () => undefined,
          batchWaitMs,
        }),
      ).rejects.toThrow(/batchWaitMs must be a non-negative integer/);
    }
    await queue.close();
  });

  it('closing while a batch waits for more returns without waiting it out, hands nothing over and leaves no timer behind', async () => {
    const timersBefore = activeTimers();
    const queue = createInProcessQueue({ partitions: 1 });
    await queue.createTopics([{ topic: 'lanner.logs' }]);
    const handed: string[] = [];
    const subscription = await queue.subscribe({
      groupId: 'indexer',
      topics: ['lanner.logs'],
      fromBeginning: true,
      handler: async () => undefined,
      batchHandler: async (messages) => void handed.push(...messages.map((message) => message.value.toString())),
      batchWaitMs: 600_000,
    });
    await queue.publish('lanner.logs', [{ key: 'execution-1', value: Buffer.from('line') }]);
    await new Promise((resolve) => setImmediate(resolve));

    await subscription.close();

    expect(handed).toEqual([]);
    expect(await queue.consumerLag('indexer', ['lanner.logs'])).toEqual(new Map([['lanner.logs', 1]]));
    await queue.close();
    // At most as many as before: an earlier test's timer may have ended meanwhile.
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
  });

  it('hands over a full batch without waiting out the batch wait', async () => {
    const queue = createInProcessQueue({ partitions: 1 });
    await queue.createTopics([{ topic: 'lanner.logs' }]);
    let received!: (values: string[]) => void;
    const batch = new Promise<string[]>((resolve) => (received = resolve));
    await queue.subscribe({
      groupId: 'indexer',
      topics: ['lanner.logs'],
      fromBeginning: true,
      handler: async () => undefined,
      batchHandler: async (messages) => received(messages.map((message) => message.value.toString())),
      maxBatchMessages: 3,
      batchWaitMs: 600_000,
    });
    await queue.publish('lanner.logs', [{ key: 'execution-1', value: Buffer.from('a') }]);
    await queue.publish(
      'lanner.logs',
      ['b', 'c', 'd'].map((value) => ({ key: 'execution-1', value: Buffer.from(value) })),
    );
    expect(await batch).toEqual(['a', 'b', 'c']);
    await queue.close();
  });

  it('a member leaving mid-stream hands its partitions over without losing a message', async () => {
    const queue = createInProcessQueue({ partitions: 4 });
    await queue.createTopics([{ topic: 'lanner.executor' }]);
    const handled: string[] = [];
    const handler = async (message: QueueMessage): Promise<void> => {
      handled.push(message.value.toString());
    };
    const first = await queue.subscribe({ groupId: 'executor', topics: ['lanner.executor'], handler });
    const second = await queue.subscribe({ groupId: 'executor', topics: ['lanner.executor'], handler });

    const events = Array.from({ length: 200 }, (_, i) => ({ key: `execution-${i % 17}`, value: Buffer.from(`e${i}`) }));
    await queue.publish('lanner.executor', events.slice(0, 100));
    await first.close();
    await queue.publish('lanner.executor', events.slice(100));
    for (let turn = 0; turn < 1000 && new Set(handled).size < 200; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
    }

    expect(new Set(handled)).toEqual(new Set(events.map((event) => event.value.toString())));
    await second.close();
    await queue.close();
  });
});
