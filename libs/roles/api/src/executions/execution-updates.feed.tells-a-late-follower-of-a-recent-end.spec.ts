import { randomUUID } from 'node:crypto';
import { encodeQueueMessage, executionUpdateCodec } from '@lanner/frames';
import { createInProcessQueue, type QueuePort } from '@lanner/queue';
import { apiTopics } from '../api-topics';
import { ExecutionUpdatesFeed, type ExecutionChange } from './execution-updates.feed';

// A `?wait=true` starts listening after its create returned; an execution that ended
// in between must still be heard at once, not at the follower's next slow poll.

const topics = apiTopics('feed-spec.');
let queue: QueuePort;
let feed: ExecutionUpdatesFeed;

beforeEach(async () => {
  queue = createInProcessQueue({ partitions: 2 });
  await queue.createTopics([{ topic: topics.executionUpdates, partitions: 2 }]);
  feed = new ExecutionUpdatesFeed(queue, topics);
  await feed.start();
});

afterEach(async () => {
  await feed.onModuleDestroy();
  await queue.close();
});

async function update(executionId: string, version: number, ended: boolean): Promise<void> {
  await queue.publish(topics.executionUpdates, [
    encodeQueueMessage(executionUpdateCodec, {
      schemaVersion: 1,
      messageId: randomUUID(),
      type: 'execution.updated',
      occurredAt: new Date().toISOString(),
      payload: {
        tenantId: 'main',
        executionId,
        namespace: 'company.team',
        flowId: 'hello',
        state: ended ? 'SUCCESS' : 'RUNNING',
        version,
        ended,
      },
    }),
  ]);
}

/** The changes `executionId`'s listener hears until `count` arrived. */
function hear(executionId: string, count: number): Promise<ExecutionChange[]> {
  return new Promise((resolve) => {
    const heard: ExecutionChange[] = [];
    const stop = feed.listen(executionId, (change) => {
      heard.push(change);
      if (heard.length === count) {
        stop();
        resolve(heard);
      }
    });
  });
}

describe('the execution updates feed', () => {
  it('tells each listener the version and whether the execution ended', async () => {
    const heard = hear('exec-1', 2);
    await update('exec-1', 2, false);
    await update('exec-1', 3, true);
    expect(await heard).toEqual([
      { version: 2, ended: false },
      { version: 3, ended: true },
    ]);
  });

  it('tells a listener that starts after the end of it at once', async () => {
    const before = hear('exec-2', 1);
    await update('exec-2', 4, true);
    await before;
    expect(await hear('exec-2', 1)).toEqual([{ version: 4, ended: true }]);
  });

  it('says nothing to a late listener of an execution that has not ended', async () => {
    const before = hear('exec-3', 1);
    await update('exec-3', 2, false);
    await before;
    const heard: ExecutionChange[] = [];
    const stop = feed.listen('exec-3', (change) => heard.push(change));
    await new Promise((resolve) => setTimeout(resolve, 50));
    stop();
    expect(heard).toEqual([]);
  });
});
