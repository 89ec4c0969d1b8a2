import type { ExecutionWithTaskRuns, TaskRunRecord } from '@lanner/model';
import { ended, startExecutorHarness, type ExecutorHarness } from './testing/executor-harness';

// A topology applied and a flow run at once (Terraform, then CI): the executor
// reuses its view of queues, groups and workers for a while, and a queue made
// after that view was read must still route. Real Kafka and PostgreSQL; the
// fleet view is kept a minute here, so only a fresh read can see the new queue.

const TENANT = 'main';
const NAMESPACE = 'company.iac';

let harness: ExecutorHarness;

const flowWith = (flowId: string, tag: string): string => `
id: ${flowId}
namespace: ${NAMESPACE}
tasks:
  - id: work
    type: io.kestra.plugin.core.debug.Return
    format: done
    workerSelector: { tags: [${tag}] }
`;

async function run(flowId: string, tag: string): Promise<ExecutionWithTaskRuns> {
  const revision = await harness.saveFlow(TENANT, flowWith(flowId, tag));
  const executionId = await harness.submit(TENANT, NAMESPACE, flowId, revision);
  return harness.eventually(TENANT, executionId, ended, 'ended');
}

const work = (execution: ExecutionWithTaskRuns): TaskRunRecord =>
  execution.taskRuns.find((taskRun) => taskRun.taskId === 'work') as TaskRunRecord;

beforeAll(async () => {
  harness = await startExecutorHarness({
    jobQueues: ['iac-old', 'iac-new'],
    executor: { routingRefresh: { fleetMs: 60_000, selectorsMs: 0 } },
  });
  await harness.repositories.workerQueues.put({ id: 'iac-old', tags: ['iac-old'] });
  await harness.repositories.workerGroups.put({
    id: 'iac-pool',
    name: 'IaC pool',
    subscriptions: [{ workerQueueId: 'iac-old' }],
  });
  await harness.connectWorker({ workerId: 'iac-worker-1', groupId: 'iac-pool', queueIds: ['iac-old'] });
}, 120_000);

afterAll(async () => {
  await harness?.close();
}, 60_000);

describe('the executor routes to a worker queue made just after it last read the fleet', () => {
  it('runs a task on a queue, group subscription and worker that did not exist when the executor read its view', async () => {
    // The executor reads (and keeps) its view of the fleet while routing this one.
    expect(work(await run('before', 'iac-old'))).toMatchObject({ state: 'SUCCESS', workerQueueId: 'iac-old' });

    await harness.repositories.workerQueues.put({ id: 'iac-new', tags: ['iac-new'] });
    await harness.repositories.workerGroups.put({
      id: 'iac-pool',
      name: 'IaC pool',
      subscriptions: [{ workerQueueId: 'iac-old' }, { workerQueueId: 'iac-new' }],
    });
    await harness.disconnectWorker('iac-worker-1');
    await harness.connectWorker({ workerId: 'iac-worker-1', groupId: 'iac-pool', queueIds: ['iac-old', 'iac-new'] });

    const after = await run('after', 'iac-new');
    expect(after.state).toBe('SUCCESS');
    expect(work(after)).toMatchObject({ state: 'SUCCESS', workerQueueId: 'iac-new', dispatchReason: null });
  });
});
