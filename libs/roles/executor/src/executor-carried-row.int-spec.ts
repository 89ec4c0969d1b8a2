import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { QUEUE_SCHEMA_VERSIONS, type ExecutorEvent } from '@lanner/frames';
import type { ExecutionWithTaskRuns } from '@lanner/model';
import { pause } from '@lanner/testing';
import { ended, startExecutorHarness, type ExecutorHarness } from './testing/executor-harness';

// Outside maintenance mode the api's `execution.created` carries the row it inserted,
// and the executor starts the execution from it instead of reading it (one statement
// fewer per batch of new executions). On the real Kafka and PostgreSQL: the first job
// of such an execution goes out while the `executions` table is locked against every
// read, so nothing was read before it; the execution ends as one announced without its
// row does; and the same announcement delivered again once the execution has ended
// (as after a crash or a hand-over) changes nothing stored.

const TENANT = 'main';
const NAMESPACE = 'company.team';
const FLOW_ID = 'carried-row';
const FLOW = `
id: ${FLOW_ID}
namespace: ${NAMESPACE}
tasks:
  - id: hello
    type: io.kestra.plugin.core.log.Log
    message: hello
  - id: answer
    type: io.kestra.plugin.core.debug.Return
    format: "42"
`;
/** A deadline that passes fails the test; it is not a timing assertion. */
const DEADLINE_MS = 30_000;

let harness: ExecutorHarness;
let revision: number;

beforeAll(async () => {
  harness = await startExecutorHarness({ jobQueues: ['default'] });
  await harness.connectWorker({ workerId: 'default-worker', groupId: 'default', queueIds: ['default'] });
  revision = await harness.saveFlow(TENANT, FLOW);
}, 120_000);

afterAll(async () => {
  await harness?.close();
}, 60_000);

const summary = (execution: ExecutionWithTaskRuns) => ({
  state: execution.state,
  version: execution.version,
  taskRuns: execution.taskRuns.map((run) => ({
    id: run.id,
    taskId: run.taskId,
    state: run.state,
    outputs: run.outputs,
    attempts: run.attempts.map((attempt) => [attempt.attempt, attempt.state]),
  })),
});

async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`never ${what}`);
    await pause(50);
  }
}

const jobsOf = (executionId: string, taskId: string) =>
  harness.jobs.filter(({ job }) => job.executionId === executionId && job.taskId === taskId);

describe('a new execution announced with its row', () => {
  it('runs to SUCCESS as one announced without it, with the same task runs and outputs', async () => {
    const withRow = await harness.submit(TENANT, NAMESPACE, FLOW_ID, revision, {}, { carryRow: true });
    const withoutRow = await harness.submit(TENANT, NAMESPACE, FLOW_ID, revision);
    const [a, b] = await Promise.all([withRow, withoutRow].map((id) => harness.eventually(TENANT, id, ended, 'ended')));
    expect(a.state).toBe('SUCCESS');
    const shape = (execution: ExecutionWithTaskRuns) =>
      execution.taskRuns.map((run) => [run.taskId, run.state, run.outputs, run.attempts.length]);
    expect(shape(a)).toEqual([
      ['hello', 'SUCCESS', {}, 1],
      ['answer', 'SUCCESS', { value: '42' }, 1],
    ]);
    expect(shape(a)).toEqual(shape(b));
    expect(a.version).toBe(b.version);
  });

  it('is started without a read: its first job goes out while every read of the executions table waits', async () => {
    const executionId = randomUUID();
    const record = await harness.repositories.executions.create(TENANT, {
      id: executionId,
      namespace: NAMESPACE,
      flowId: FLOW_ID,
      flowRevision: revision,
      state: 'CREATED',
      stateHistories: [{ state: 'CREATED', date: new Date() }],
      inputs: {},
      labels: {},
    });
    const locker = new Client({ connectionString: harness.databaseUrl });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE executions IN ACCESS EXCLUSIVE MODE');
      await harness.publishToExecutor(created(executionId, { ...record, taskRuns: [] }));
      await until(
        `sent the first job of ${executionId} while the table was locked`,
        () => jobsOf(executionId, 'hello').length > 0,
      );
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }
    const execution = await harness.eventually(TENANT, executionId, ended, 'ended');
    expect(execution.state).toBe('SUCCESS');
    expect(jobsOf(executionId, 'hello')).toHaveLength(1);
  });

  it('delivered again after the execution ended, changes nothing stored', async () => {
    const executionId = await harness.submit(TENANT, NAMESPACE, FLOW_ID, revision, {}, { carryRow: true });
    const endedOnce = await harness.eventually(TENANT, executionId, ended, 'ended');
    expect(endedOnce.state).toBe('SUCCESS');
    const before = summary(endedOnce);

    // The announcement as it was first delivered: the row it carries is the one of before the start.
    const row = await harness.repositories.executions.getExecutorState(TENANT, executionId);
    await harness.publishToExecutor(
      created(executionId, {
        ...row.execution,
        state: 'CREATED',
        version: 0,
        stateHistories: [row.execution.stateHistories[0]],
        startedAt: null,
        endedAt: null,
        outputs: null,
        taskRuns: [],
      }),
    );
    // Applied to the row carried, the redelivery produces the first job again under its id (the controller
    // would not send it: its attempt ended); its write is refused by the version, and it goes on what is stored.
    await until('applied the redelivery', () => jobsOf(executionId, 'hello').length > 1);
    expect(new Set(jobsOf(executionId, 'hello').map(({ job }) => `${job.taskRunId}:${job.attempt}`)).size).toBe(1);
    // The stand-in answers that job again; give it and the redelivery time to be applied, then compare.
    await pause(2_000);
    const after = await harness.repositories.executions.get(TENANT, executionId);
    expect(summary(after)).toEqual(before);
    expect(jobsOf(executionId, 'answer')).toHaveLength(1);
  });
});

function created(
  executionId: string,
  execution: Extract<ExecutorEvent, { type: 'execution.created' }>['payload']['execution'],
): ExecutorEvent {
  return {
    schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.created'],
    messageId: `${executionId}:created`,
    type: 'execution.created',
    occurredAt: new Date().toISOString(),
    payload: {
      tenantId: TENANT,
      executionId,
      namespace: NAMESPACE,
      flowId: FLOW_ID,
      flowRevision: revision,
      inputs: {},
      labels: {},
      ...(execution !== undefined ? { execution } : {}),
    },
  };
}
