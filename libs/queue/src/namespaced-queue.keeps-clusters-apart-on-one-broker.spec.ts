import { createInProcessQueue } from './in-process/in-process-queue';
import { namespacedQueue } from './namespaced-queue';
import type { QueueMessage } from './queue.port';

function collector() {
  const received: QueueMessage[] = [];
  return { received, handler: async (message: QueueMessage) => void received.push(message) };
}

async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('namespacedQueue', () => {
  it('keeps two clusters on one broker apart: same topic and group names, separate messages', async () => {
    const broker = createInProcessQueue();
    const blue = namespacedQueue(broker, 'blue.');
    const green = namespacedQueue(broker, 'green.');
    await blue.createTopics([{ topic: 'lanner.executor' }]);
    await green.createTopics([{ topic: 'lanner.executor' }]);
    const blueSeen = collector();
    const greenSeen = collector();
    await blue.subscribe({
      groupId: 'lanner-executor',
      topics: ['lanner.executor'],
      fromBeginning: true,
      handler: blueSeen.handler,
    });
    await green.subscribe({
      groupId: 'lanner-executor',
      topics: ['lanner.executor'],
      fromBeginning: true,
      handler: greenSeen.handler,
    });
    const raw = collector();
    await broker.subscribe({ groupId: 'inspector', topics: ['blue.lanner.executor'], fromBeginning: true, handler: raw.handler });

    await blue.publish('lanner.executor', [{ key: 'e-1', value: Buffer.from('blue event') }]);
    await green.publish('lanner.executor', [{ key: 'e-1', value: Buffer.from('green event') }]);
    await settle();

    expect(blueSeen.received.map((message) => message.value.toString())).toEqual(['blue event']);
    expect(greenSeen.received.map((message) => message.value.toString())).toEqual(['green event']);
    // Roles see their own topic names; the broker holds the namespaced ones.
    expect(blueSeen.received[0].topic).toBe('lanner.executor');
    expect(raw.received.map((message) => message.value.toString())).toEqual(['blue event']);
    await broker.close();
  });

  it("pauses and resumes by the role's topic name", async () => {
    const broker = createInProcessQueue();
    const queue = namespacedQueue(broker, 'run-7.');
    await queue.createTopics([{ topic: 'lanner.worker-jobs.gpu' }]);
    const seen = collector();
    const subscription = await queue.subscribe({
      groupId: 'controller',
      topics: ['lanner.worker-jobs.gpu'],
      fromBeginning: true,
      handler: seen.handler,
    });
    subscription.pause('lanner.worker-jobs.gpu');
    expect(subscription.isPaused('lanner.worker-jobs.gpu')).toBe(true);
    await queue.publish('lanner.worker-jobs.gpu', [{ key: 't-1', value: Buffer.from('job') }]);
    await settle();
    expect(seen.received).toEqual([]);
    subscription.resume('lanner.worker-jobs.gpu');
    await settle();
    expect(seen.received.map((message) => message.value.toString())).toEqual(['job']);
    await broker.close();
  });

  it("reads a group's lag by the role's names: the namespace's own group and topic, never the neighbour's", async () => {
    const broker = createInProcessQueue();
    const blue = namespacedQueue(broker, 'blue.');
    const green = namespacedQueue(broker, 'green.');
    await blue.createTopics([{ topic: 'lanner.worker-jobs.gpu' }]);
    await green.createTopics([{ topic: 'lanner.worker-jobs.gpu' }]);
    await blue.publish('lanner.worker-jobs.gpu', [
      { key: 't-1', value: Buffer.from('job 1') },
      { key: 't-2', value: Buffer.from('job 2') },
    ]);
    await green.publish('lanner.worker-jobs.gpu', [{ key: 't-1', value: Buffer.from('job 1') }]);
    const seen = collector();
    await green.subscribe({
      groupId: 'lanner-controller-gpu',
      topics: ['lanner.worker-jobs.gpu'],
      fromBeginning: true,
      handler: seen.handler,
    });
    await settle();

    expect(await blue.consumerLag('lanner-controller-gpu', ['lanner.worker-jobs.gpu'])).toEqual(
      new Map([['lanner.worker-jobs.gpu', 2]]),
    );
    expect(await green.consumerLag('lanner-controller-gpu', ['lanner.worker-jobs.gpu'])).toEqual(
      new Map([['lanner.worker-jobs.gpu', 0]]),
    );
    await expect(blue.consumerLag('lanner-controller-gpu', ['lanner.worker-jobs.etl'])).rejects.toThrow(
      'Topic "lanner.worker-jobs.etl" does not exist',
    );
    await broker.close();
  });

  it('is the queue itself without a namespace', () => {
    const broker = createInProcessQueue();
    expect(namespacedQueue(broker, '')).toBe(broker);
  });
});
