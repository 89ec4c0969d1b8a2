import { Client } from 'pg';
import { readStoredState } from '@lanner/state-machine';
import { executorStateWrite } from './lib/execution-records';
import { loadStoredExecution } from './lib/stored-state';
import { pause } from '@lanner/testing';
import type { StoredJson } from '@lanner/model';
import { ended, startExecutorHarness, type ExecutorHarness, type JobPayload } from './testing/executor-harness';
import { format1State, STORED_V1_FLOW } from './testing/stored-state-fixtures';

// A rolling upgrade on the real Kafka and PostgreSQL: an execution whose state an
// executor of the previous release stored (format 1, no format version) while its
// first task was on a worker is carried on to SUCCESS by this executor, which
// stores it again in the current format (format 3: the execution's document without
// its task runs, each task run's own value in its row). One whose state a newer release stored
// is left as it is, its event kept until an executor that reads it runs.

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

/** Saves the flow; its first job waits for the spec (`firstJob`), the second is answered SUCCESS. */
async function holdingFirstJob(flowId: string): Promise<{ revision: number; firstJob: Promise<JobPayload> }> {
  const revision = await harness.saveFlow(TENANT, STORED_V1_FLOW.replace('id: stored-v1', `id: ${flowId}`));
  let took: (job: JobPayload) => void = () => undefined;
  const firstJob = new Promise<JobPayload>((resolve) => (took = resolve));
  harness.scripts.set(flowId, async (job, reply) => {
    if (job.taskId === 'first') return took(job);
    await reply.started(job);
    await reply.result(job, 'SUCCESS', { value: 'two' });
  });
  return { revision, firstJob };
}

/**
 * The state the executor has stored for the execution: the job can reach the worker before
 * the write that dispatched it commits, so this waits for it.
 */
async function storedStateOf(executionId: string) {
  for (let tries = 0; ; tries += 1) {
    const stored = await harness.repositories.executions.getExecutorState(TENANT, executionId);
    if (stored.stateData !== null && typeof stored.stateData === 'object' && 'taskRuns' in stored.stateData) return stored;
    if (tries >= 100) throw new Error(`execution ${executionId}: no state stored after 10 s`);
    await pause(100);
  }
}

/** Stores `stateData` as the execution's state, as an executor does (the row's fields follow it). */
async function storeState(executionId: string, stateData: Record<string, StoredJson>): Promise<void> {
  const { execution: row, stateData: current } = await storedStateOf(executionId);
  // Whatever format they are in, both states are of this release's shape: read as such to derive the row's fields.
  const asCurrent = (state: StoredJson | null) => loadStoredExecution(executionId, { ...(state as object), formatVersion: 2 });
  const write = executorStateWrite(asCurrent(current), {
    ...asCurrent(stateData),
    version: row.version + 1,
  });
  await harness.repositories.executions.storeExecutorState(TENANT, executionId, row.version, { ...write, stateData });
}

describe('an execution stored by the previous release', () => {
  it('is loaded from its format 1 state and carried on to SUCCESS, then stored as format 3, each task run in its row', async () => {
    const { revision, firstJob } = await holdingFirstJob('stored-v1');
    const executionId = await harness.submit(TENANT, NAMESPACE, 'stored-v1', revision);
    const job = await firstJob;
    expect(job.taskRunId).toBe(`${executionId}:first`);

    // The row as the previous release's executor stored it: the whole state in format 1.
    await storeState(executionId, format1State(executionId));
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
    expect(after.stateData).toMatchObject({ formatVersion: 3, state: 'SUCCESS' });
    expect(readStoredState(after.stateData)).toMatchObject({ ok: true, formatVersion: 3 });

    // As stored: the document holds no task run; each task run, even the first one the previous release ran, has its own value.
    const client = new Client({ connectionString: harness.databaseUrl });
    await client.connect();
    try {
      const row = await client.query<{ has_runs: boolean }>(
        `SELECT state_data ? 'taskRuns' AS has_runs FROM executions WHERE id = $1`,
        [executionId],
      );
      expect(row.rows[0]?.has_runs).toBe(false);
      const runs = await client.query<{ task_id: string; state: string }>(
        `SELECT task_id, machine_data->>'state' AS state FROM task_runs WHERE execution_id = $1 ORDER BY task_id`,
        [executionId],
      );
      expect(runs.rows).toEqual([
        { task_id: 'first', state: 'SUCCESS' },
        { task_id: 'second', state: 'SUCCESS' },
      ]);
    } finally {
      await client.end();
    }
  });
});

// Last in this file: until its row is readable, the event it holds back keeps its partition waiting.
describe('an execution stored by a newer release', () => {
  it('is left as it is, its event neither applied nor parked, and goes on once its state is readable', async () => {
    const { revision, firstJob } = await holdingFirstJob('stored-newer');
    const executionId = await harness.submit(TENANT, NAMESPACE, 'stored-newer', revision);
    const job = await firstJob;
    const { stateData } = await storedStateOf(executionId);
    const newer = { ...(stateData as Record<string, StoredJson>), formatVersion: 4, addedByTheNewerRelease: true };
    await storeState(executionId, newer);
    const stored = await harness.repositories.executions.getExecutorState(TENANT, executionId);

    await harness.answers.started(job);
    await harness.answers.result(job, 'SUCCESS', { value: 'one' });
    // Several tries of the event (retried from 500 ms on); nothing may change meanwhile.
    await pause(3_000);

    const untouched = await harness.repositories.executions.getExecutorState(TENANT, executionId);
    expect(untouched.execution.version).toBe(stored.execution.version);
    expect(untouched.stateData).toEqual(newer);
    expect((await harness.repositories.executions.get(TENANT, executionId)).taskRuns.map((run) => run.state)).toEqual([
      'SUBMITTED',
    ]);
    expect((await harness.repositories.deadLetters.list({ limit: 10, offset: 0 })).total).toBe(0);

    // As an executor that reads it would: the event was kept, and is applied.
    const { formatVersion: _newer, addedByTheNewerRelease: _added, ...readable } = newer;
    await storeState(executionId, { ...readable, formatVersion: 2 });
    const done = await harness.eventually(TENANT, executionId, ended, 'ended');
    expect(done.state).toBe('SUCCESS');
  });
});
