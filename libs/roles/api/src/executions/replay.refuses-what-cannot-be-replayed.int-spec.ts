import { randomUUID } from 'node:crypto';
import { decodeQueueMessage, type ExecutorEvent, executorEventCodec, QueueTopics } from '@lanner/frames';
import { parseFlow } from '@lanner/model';
import type { QueueSubscription } from '@lanner/queue';
import { listTaskRuns, simulateFlow, toStoredState, toStoredTaskRun } from '@lanner/state-machine';
import { eventually, startApiForSpec, type ApiSpecFixture } from '../testing/api-spec-fixture';

// POST /executions/{id}/replay against the real PostgreSQL and Kafka: what it
// refuses, with which answer, and what it creates and announces to the executor.
// The spec plays the executor: it stores the original's state as the executor would.

const TENANT = 'main';
const NAMESPACE = `replay.spec${randomUUID().slice(0, 8)}`;
const FLOW_YAML = `id: steps
namespace: ${NAMESPACE}
inputs:
  - { id: who, type: STRING, defaults: world }
tasks:
  - id: first
    type: io.kestra.plugin.core.log.Log
    message: "hello {{ inputs.who }}"
  - id: second
    type: io.kestra.plugin.core.log.Log
    message: again
errors:
  - id: alert
    type: io.kestra.plugin.core.log.Log
    message: failed
`;

let api: ApiSpecFixture;
let subscription: QueueSubscription;
const events: ExecutorEvent[] = [];

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${api.baseUrl}/api/v1/${TENANT}${path}`, {
    method,
    headers: { authorization: `Bearer ${api.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are inspected field by field
  return { status: response.status, json: (await response.json()) as any };
}

/** An execution of the flow, stored as the executor leaves it once `second` failed (its errors branch ran). */
async function failedExecution(): Promise<string> {
  const created = await call('POST', `/executions/${NAMESPACE}/steps`, { inputs: { who: 'spec' }, labels: { team: 'qa' } });
  expect(created.status).toBe(200);
  const id = created.json.id as string;
  const parsed = parseFlow(FLOW_YAML);
  if (!parsed.ok) throw new Error('the spec flow does not parse');
  const ended = simulateFlow(
    { ...parsed.flow, revision: 1 },
    { executionId: id, inputs: { who: 'spec' }, script: { second: { state: 'FAILED', error: 'boom' } } },
  ).execution;
  expect(ended.state).toBe('FAILED');
  await api.repositories.executions.storeExecutorState(TENANT, id, 0, {
    version: ended.version,
    state: 'FAILED',
    stateHistories: ended.histories.map((change) => ({ state: change.state, date: new Date(change.at) })),
    endedAt: new Date(),
    stateData: JSON.parse(JSON.stringify(toStoredState(ended))),
    // As the executor stores them: each task run's row with its own state-machine value.
    taskRuns: listTaskRuns(ended).map((run) => ({
      id: run.id,
      executionId: id,
      taskId: run.taskId,
      parentTaskRunId: run.parentTaskRunId ?? null,
      value: run.value ?? null,
      state: run.state,
      stateHistories: run.histories.map((change) => ({ state: change.state, date: new Date(change.at) })),
      outputs: run.outputs ?? null,
      workerQueueId: null,
      workerSelector: null,
      dispatchReason: null,
      error: run.error ?? null,
      attempts: [],
      machineData: JSON.parse(JSON.stringify(toStoredTaskRun(run))),
    })),
  });
  return id;
}

beforeAll(async () => {
  api = await startApiForSpec();
  subscription = await api.queue.subscribe({
    groupId: `api-replay-spec-${randomUUID()}`,
    topics: [`${api.topicPrefix}${QueueTopics.executor}`],
    fromBeginning: true,
    handler: async (message) => {
      events.push(decodeQueueMessage(executorEventCodec, message.value));
    },
  });
  const flow = await fetch(`${api.baseUrl}/api/v1/${TENANT}/flows`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.adminToken}`, 'content-type': 'application/x-yaml' },
    body: FLOW_YAML,
  });
  expect(flow.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await subscription?.close();
  await api?.close();
}, 60_000);

describe('replay of an execution', () => {
  it('refuses an execution that has not ended (409) and one that does not exist (404)', async () => {
    const created = await call('POST', `/executions/${NAMESPACE}/steps`, {});
    const running = await call('POST', `/executions/${created.json.id}/replay`);
    expect(running.status).toBe(409);
    expect(running.json.detail).toBe(`Execution '${created.json.id}' is CREATED; only an ended execution replays`);
    expect((await call('POST', `/executions/${randomUUID()}/replay`)).status).toBe(404);
  });

  it('refuses a task run it cannot start from with a 400 naming taskRunId and why, and an unknown query parameter', async () => {
    const id = await failedExecution();
    const unknown = await call('POST', `/executions/${id}/replay?taskRunId=${id}:nope`);
    expect(unknown.status).toBe(400);
    expect(unknown.json.errors).toEqual([{ path: 'taskRunId', message: `Execution '${id}' has no task run '${id}:nope'` }]);
    const errorsBranch = await call('POST', `/executions/${id}/replay?taskRunId=${id}:alert`);
    expect(errorsBranch.status).toBe(400);
    expect(errorsBranch.json.errors).toEqual([
      { path: 'taskRunId', message: expect.stringContaining('is in the errors branch') },
    ]);
    const revision = await call('POST', `/executions/${id}/replay?revision=1`);
    expect(revision.status).toBe(400);
    expect(JSON.stringify(revision.json.errors)).toContain('revision');
  });

  it('creates a new execution with the same revision, inputs and labels, naming its origin, and announces it', async () => {
    const id = await failedExecution();
    const replay = await call('POST', `/executions/${id}/replay?taskRunId=${id}:second`);
    expect(replay.status).toBe(200);
    expect(replay.json).toMatchObject({
      namespace: NAMESPACE,
      flowId: 'steps',
      flowRevision: 1,
      state: { current: 'CREATED' },
      inputs: { who: 'spec' },
      labels: { team: 'qa' },
      replayOf: { executionId: id, taskRunId: `${id}:second` },
    });
    expect(replay.json.id).not.toBe(id);
    const announced = await eventually('execution.created of the replay', () =>
      events.find((event) => event.type === 'execution.created' && event.payload.executionId === replay.json.id),
    );
    expect(announced.payload).toMatchObject({ namespace: NAMESPACE, flowId: 'steps', flowRevision: 1, inputs: { who: 'spec' } });
    // The original is left as it ended.
    expect((await call('GET', `/executions/${id}`)).json.state.current).toBe('FAILED');

    const whole = await call('POST', `/executions/${id}/replay`);
    expect(whole.status).toBe(200);
    expect(whole.json.replayOf).toEqual({ executionId: id, taskRunId: null });
  });
});
