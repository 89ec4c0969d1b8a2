import { randomUUID } from 'node:crypto';
import { encodeExecutionUpdate, encodeQueueMessage, executionUpdateCodec } from '@lanner/frames';
import type { ExecutionWithTaskRuns } from '@lanner/model';
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

  it('passes on the ended execution an update carries, to a late listener too, when it is the one announced', async () => {
    const at = new Date('2026-11-30T01:02:03.456Z');
    const carried: ExecutionWithTaskRuns = {
      id: 'exec-4',
      tenantId: 'main',
      namespace: 'company.team',
      flowId: 'hello',
      flowRevision: 1,
      state: 'SUCCESS',
      stateHistories: [{ state: 'SUCCESS', date: at }],
      inputs: null,
      outputs: { done: true },
      labels: {},
      trigger: null,
      version: 6,
      parentExecutionId: null,
      parentTaskRunId: null,
      createdAt: at,
      updatedAt: at,
      startedAt: at,
      endedAt: at,
      error: null,
      taskRuns: [],
    };
    const carry = async (execution: ExecutionWithTaskRuns, version: number) => {
      const message = {
        schemaVersion: 1 as const,
        messageId: randomUUID(),
        type: 'execution.updated' as const,
        occurredAt: new Date().toISOString(),
        payload: {
          tenantId: 'main',
          executionId: 'exec-4',
          namespace: 'company.team',
          flowId: 'hello',
          state: 'SUCCESS',
          version,
          ended: true,
          execution,
        },
      };
      await queue.publish(topics.executionUpdates, [encodeExecutionUpdate(message)]);
    };
    const heard = hear('exec-4', 1);
    await carry(carried, 6);
    expect(await heard).toEqual([{ version: 6, ended: true, execution: carried }]);
    expect(await hear('exec-4', 1)).toEqual([{ version: 6, ended: true, execution: carried }]);

    // One of another version than announced is not passed on.
    // (This listener hears the recent end first.)
    const other = hear('exec-4', 2);
    await carry({ ...carried, version: 5 }, 7);
    expect((await other)[1]).toEqual({ version: 7, ended: true });
    expect(await hear('exec-4', 1)).toEqual([{ version: 7, ended: true }]);
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
