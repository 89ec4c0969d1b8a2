import { readStoredState } from '@lanner/state-machine';
import { executorStateWrite } from './lib/execution-records';
import { loadStoredExecution } from './lib/stored-state';
import { ended, startExecutorHarness, type ExecutorHarness, type JobPayload } from './testing/executor-harness';
import { format1State, STORED_V1_FLOW } from './testing/stored-state-fixtures';

// A rolling upgrade on the real Kafka and PostgreSQL: an execution whose state an
// executor of the previous release stored (format 1, no format version) while its
// first task was on a worker is carried on to SUCCESS by this executor, which
// stores it again in the current format.

const TENANT = 'main';
const NAMESPACE = 'company.team';

let harness: ExecutorHarness;

beforeAll(async () => {
  harness = await startExecutorHarness({ jobQueues: ['default'] });
  await harness.connectWorker({ workerId: 'default-worker', groupId: 'default', queueIds: ['default'] });
}, 120_000);

afterAll(async () => {
  await harness?.close();
}, 60_000);

describe('an execution stored by the previous release', () => {
  it('is loaded from its format 1 state and carried on to SUCCESS, then stored as format 2', async () => {
    const revision = await harness.saveFlow(TENANT, STORED_V1_FLOW);
    // The first job stays on its worker until the row holds the previous release's state; the second is answered.
    let took: (job: JobPayload) => void = () => undefined;
    const firstJob = new Promise<JobPayload>((resolve) => (took = resolve));
    harness.scripts.set('stored-v1', async (job, reply) => {
      if (job.taskId === 'first') return took(job);
      await reply.started(job);
      await reply.result(job, 'SUCCESS', { value: 'two' });
    });

    const executionId = await harness.submit(TENANT, NAMESPACE, 'stored-v1', revision);
    const job = await firstJob;
    expect(job.taskRunId).toBe(`${executionId}:first`);

    // The row as the previous release's executor stored it: the whole state in format 1.
    const { execution: row, stateData } = await harness.repositories.executions.getExecutorState(TENANT, executionId);
    const current = loadStoredExecution(executionId, stateData ?? {});
    const previous = format1State(executionId);
    const write = executorStateWrite(current, { ...loadStoredExecution(executionId, previous), version: row.version + 1 });
    await harness.repositories.executions.storeExecutorState(TENANT, executionId, row.version, {
      ...write,
      stateData: previous,
    });
    const before = await harness.repositories.executions.getExecutorState(TENANT, executionId);
    expect(before.stateData).not.toHaveProperty('formatVersion');
    expect(readStoredState(before.stateData)).toMatchObject({ ok: true, formatVersion: 1 });

    await harness.answers.started(job);
    await harness.answers.result(job, 'SUCCESS', { value: 'one' });
    const done = await harness.eventually(TENANT, executionId, ended, 'ended');

    expect(done.state).toBe('SUCCESS');
    expect(done.taskRuns.map((taskRun) => [taskRun.taskId, taskRun.state])).toEqual([
      ['first', 'SUCCESS'],
      ['second', 'SUCCESS'],
    ]);
    const after = await harness.repositories.executions.getExecutorState(TENANT, executionId);
    expect(after.stateData).toMatchObject({ formatVersion: 2, state: 'SUCCESS' });
  });
});
