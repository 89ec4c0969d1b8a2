import { createHash, randomUUID } from 'node:crypto';
import {
  decodeQueueMessage,
  encodeQueueMessage,
  executionUpdateCodec,
  type ExecutorEvent,
  executorEventCodec,
  QueueTopics,
} from '@lanner/frames';
import type { ExecutionRecordState, ExecutionWithTaskRuns } from '@lanner/model';
import type { QueueSubscription } from '@lanner/queue';
import { Pool } from 'pg';
import { eventually, startApiForSpec, type ApiSpecFixture } from './testing/api-spec-fixture';

// The api role in-process against the real PostgreSQL and Kafka; the spec
// talks HTTP to it, reads what it published on `lanner.executor`, and plays the
// executor (row changes + `execution.updated`) where an answer depends on it.

const TENANT = 'main';
const FLOW_YAML = `id: hello
namespace: company.team
inputs:
  - { id: who, type: STRING, defaults: world }
tasks:
  - id: say
    type: io.kestra.plugin.core.log.Log
    message: "hello {{ inputs.who }}"
`;

let api: ApiSpecFixture;
let executorSubscription: QueueSubscription;
const executorEvents: ExecutorEvent[] = [];

async function call(method: string, path: string, options: { body?: string; contentType?: string; token?: string | null } = {}) {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? api.adminToken : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.contentType !== undefined) headers['content-type'] = options.contentType;
  const response = await fetch(`${api.baseUrl}${path}`, { method, headers, body: options.body });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are inspected field by field in the assertions
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', json: json as any, text };
}

const postFlow = (yaml: string) => call('POST', `/api/v1/${TENANT}/flows`, { body: yaml, contentType: 'application/x-yaml' });

async function createExecution(query = '', body: unknown = { inputs: { who: 'spec' }, labels: { team: 'qa' } }) {
  return call('POST', `/api/v1/${TENANT}/executions/company.team/hello${query}`, {
    body: JSON.stringify(body),
    contentType: 'application/json',
  });
}

/**
 * Plays the executor: stores a new state, then announces it on the updates topic; `carry` makes
 * the update carry an execution (what `get` reads after the write, changed as it says).
 */
async function executorMoves(
  executionId: string,
  state: ExecutionRecordState,
  carry?: (stored: ExecutionWithTaskRuns) => ExecutionWithTaskRuns,
) {
  const current = await api.repositories.executions.get(TENANT, executionId);
  const ended = ['SUCCESS', 'WARNING', 'FAILED', 'KILLED', 'CANCELLED'].includes(state);
  const now = new Date();
  const stored = await api.repositories.executions.update(TENANT, executionId, current.version, {
    state,
    stateHistories: [...current.stateHistories, { state, date: now }],
    ...(ended ? { endedAt: now } : {}),
  });
  await api.queue.publish(`${api.topicPrefix}${QueueTopics.executionUpdates}`, [
    encodeQueueMessage(executionUpdateCodec, {
      schemaVersion: 1,
      messageId: randomUUID(),
      type: 'execution.updated',
      occurredAt: now.toISOString(),
      payload: {
        tenantId: TENANT,
        executionId,
        namespace: stored.namespace,
        flowId: stored.flowId,
        state,
        version: stored.version,
        ended,
        ...(carry !== undefined ? { execution: carry(await api.repositories.executions.get(TENANT, executionId)) } : {}),
      },
    }),
  ]);
}

const eventFor = (type: ExecutorEvent['type'], executionId: string) =>
  eventually(`${type} for ${executionId}`, () =>
    executorEvents.find((event) => event.type === type && event.payload.executionId === executionId),
  );

beforeAll(async () => {
  api = await startApiForSpec();
  executorSubscription = await api.queue.subscribe({
    groupId: `api-spec-executor-${randomUUID()}`,
    topics: [`${api.topicPrefix}${QueueTopics.executor}`],
    fromBeginning: true,
    handler: async (message) => {
      executorEvents.push(decodeQueueMessage(executorEventCodec, message.value));
    },
  });
  expect((await postFlow(FLOW_YAML)).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await executorSubscription?.close();
  await api?.close();
}, 60_000);

describe('authentication', () => {
  it('answers 401 problem+json without a token and with a wrong one', async () => {
    for (const token of [null, 'not-the-admin-token']) {
      const answer = await call('GET', `/api/v1/${TENANT}/flows/search`, { token });
      expect(answer.status).toBe(401);
      expect(answer.contentType).toContain('application/problem+json');
      expect(answer.json).toEqual({ type: expect.any(String), title: 'Unauthorized', status: 401, detail: expect.any(String) });
      expect(answer.text).not.toContain('not-the-admin-token');
    }
  });

  it('stores the bootstrap admin token hashed, and serves health and the OpenAPI document without a token', async () => {
    const hash = createHash('sha256').update(api.adminToken).digest('hex');
    expect(await api.repositories.apiTokens.findUsableByHash(hash, new Date())).toMatchObject({
      token: { tenantId: TENANT, instanceAdmin: true },
    });
    expect((await call('GET', '/health/live', { token: null })).status).toBe(200);
    const doc = await call('GET', '/api/v1/openapi.json', { token: null });
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.json.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/{tenant}/flows',
        '/api/v1/{tenant}/executions/{namespace}/{flowId}',
        '/api/v1/{tenant}/logs/{executionId}',
      ]),
    );
    expect(doc.json.components.schemas.Problem).toBeDefined();
    expect((await call('GET', '/api/docs', { token: null })).status).toBe(200);
  });
});

describe('reserved worker topology', () => {
  it('exists after the api starts: the default and system queues, and the default group subscribed to default', async () => {
    const queues = (await api.repositories.workerQueues.list()).map((queue) => queue.id);
    expect(queues).toEqual(expect.arrayContaining(['default', 'system']));
    const group = await api.repositories.workerGroups.get('default');
    expect(group.subscriptions.map((subscription) => subscription.workerQueueId)).toContain('default');
  });
});

describe('flows', () => {
  const yaml = (id: string, message = 'hi') =>
    `id: ${id}\nnamespace: company.crud\ntasks:\n  - id: say\n    type: io.kestra.plugin.core.log.Log\n    message: ${message}\n`;

  it('creates, conflicts, revises, reads revisions, searches and deletes', async () => {
    const created = await postFlow(yaml('crud'));
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      id: 'crud',
      namespace: 'company.crud',
      revision: 1,
      source: yaml('crud'),
      tasks: [{ id: 'say' }],
    });

    const again = await postFlow(yaml('crud'));
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ status: 409, title: 'Conflict' });

    const revised = await call('PUT', `/api/v1/${TENANT}/flows/company.crud/crud`, {
      body: yaml('crud', 'changed'),
      contentType: 'application/x-yaml',
    });
    expect(revised.status).toBe(200);
    expect(revised.json.revision).toBe(2);
    const fresh = await call('PUT', `/api/v1/${TENANT}/flows/company.crud/fresh`, {
      body: yaml('fresh'),
      contentType: 'application/x-yaml',
    });
    expect(fresh.status).toBe(201);

    expect((await call('GET', `/api/v1/${TENANT}/flows/company.crud/crud`)).json.revision).toBe(2);
    expect((await call('GET', `/api/v1/${TENANT}/flows/company.crud/crud?revision=1`)).json.tasks[0].message).toBe('hi');
    const search = await call('GET', `/api/v1/${TENANT}/flows/search?namespace=company.crud`);
    expect(search.json.total).toBe(2);
    expect(search.json.results.map((flow: { id: string }) => flow.id)).toEqual(['crud', 'fresh']);

    expect((await call('DELETE', `/api/v1/${TENANT}/flows/company.crud/fresh`)).status).toBe(204);
    const gone = await call('GET', `/api/v1/${TENANT}/flows/company.crud/fresh`);
    expect(gone.status).toBe(404);
    expect(gone.contentType).toContain('application/problem+json');
  });

  it('reports every problem of an invalid flow with its YAML path and line (validate: 200, create: 422)', async () => {
    const broken = 'id: broken\nnamespace: company.crud\ntasks:\n  - id: t\n    type: no.such.Task\n';
    const validated = await call('POST', `/api/v1/${TENANT}/flows/validate`, { body: broken, contentType: 'application/x-yaml' });
    expect(validated.status).toBe(200);
    expect(validated.json).toEqual([
      expect.objectContaining({ path: 'tasks[0].type', line: 5, message: expect.stringContaining('no.such.Task') }),
    ]);
    expect(
      (await call('POST', `/api/v1/${TENANT}/flows/validate`, { body: yaml('ok'), contentType: 'application/x-yaml' })).json,
    ).toEqual([]);

    const refused = await postFlow(broken);
    expect(refused.status).toBe(422);
    expect(refused.contentType).toContain('application/problem+json');
    expect(refused.json).toMatchObject({ status: 422, errors: [{ path: 'tasks[0].type', line: 5 }] });
  });

  it('validation names a deprecated spelling as a warning, and the flow is still accepted', async () => {
    const old =
      'id: old-spelling\nnamespace: company.crud\ntasks:\n  - id: t\n    type: io.kestra.plugin.core.log.Log\n    message: hi\n' +
      '    retry: { type: constant, interval: PT1S, maxAttempts: 2 }\n';
    const validated = await call('POST', `/api/v1/${TENANT}/flows/validate`, { body: old, contentType: 'application/x-yaml' });
    expect(validated.json).toEqual([
      expect.objectContaining({
        path: 'tasks[0].retry.maxAttempts',
        line: 7,
        severity: 'WARNING',
        message: expect.stringContaining("'maxAttempt'"),
      }),
    ]);
    expect((await postFlow(old)).status).toBe(201);
  });

  it('refuses a flow over 1 MiB (413), a flow sent as JSON (415) and malformed JSON (400), as problems', async () => {
    const huge = `${yaml('huge')}# ${'x'.repeat(1024 * 1024)}\n`;
    expect((await postFlow(huge)).json).toMatchObject({ status: 413 });
    expect((await call('POST', `/api/v1/${TENANT}/flows`, { body: '{}', contentType: 'application/json' })).json).toMatchObject({
      status: 415,
    });
    const malformed = await call('POST', `/api/v1/${TENANT}/executions/company.team/hello`, {
      body: '{"inputs": ',
      contentType: 'application/json',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.contentType).toContain('application/problem+json');
    expect(malformed.text).not.toMatch(/at .*\.js|SyntaxError/);
  });
});

describe('executions', () => {
  it('creates a CREATED execution, stores it and publishes execution.created', async () => {
    const created = await createExecution();
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({
      state: { current: 'CREATED' },
      namespace: 'company.team',
      flowId: 'hello',
      inputs: { who: 'spec' },
      // Its own id as the correlation id, as Kestra sets system.correlationId.
      labels: { team: 'qa', 'system.correlationId': created.json.id },
    });
    const stored = await api.repositories.executions.get(TENANT, created.json.id);
    expect(stored).toMatchObject({ state: 'CREATED', version: 0, flowRevision: 1 });
    const event = await eventFor('execution.created', created.json.id);
    expect(event.payload).toMatchObject({
      tenantId: TENANT,
      namespace: 'company.team',
      flowId: 'hello',
      flowRevision: 1,
      inputs: { who: 'spec' },
    });
  });

  it('announces an execution of a revision it knows with the row it stored, and without the row in maintenance mode', async () => {
    // From the second execution of a revision on, the api writes it without reading the flow (createIfLatest).
    await createExecution();
    const carried = await createExecution();
    expect(carried.status).toBe(200);
    const event = await eventFor('execution.created', carried.json.id);
    const stored = await api.repositories.executions.getExecutorState(TENANT, carried.json.id);
    expect(event.type === 'execution.created' && event.payload.execution).toEqual({ ...stored.execution, taskRuns: [] });

    // In maintenance mode the executor must read it (and hold it): the row is not carried.
    await api.repositories.maintenance.enter('spec', new Date());
    try {
      const held = await createExecution();
      expect(held.status).toBe(200);
      const heldEvent = await eventFor('execution.created', held.json.id);
      expect(heldEvent.payload).not.toHaveProperty('execution');
    } finally {
      await api.repositories.maintenance.exit(new Date());
    }
  });

  it('refuses bad bodies (400 with JSON paths), unknown inputs (422) and unknown flows (404)', async () => {
    const badLabels = await createExecution('', { labels: { team: 3 } });
    expect(badLabels.status).toBe(400);
    expect(badLabels.json.errors).toEqual([expect.objectContaining({ path: 'labels.team' })]);
    const systemLabel = await createExecution('', { labels: { 'system.correlationId': 'forged' } });
    expect(systemLabel.status).toBe(422);
    expect(systemLabel.json.errors).toEqual([
      { path: 'labels.system.correlationId', message: 'labels starting with system. are set by Lanner, not by a flow or a user' },
    ]);
    const unknownInput = await createExecution('', { inputs: { nope: 1 } });
    expect(unknownInput.status).toBe(422);
    expect(unknownInput.json.errors).toEqual([expect.objectContaining({ path: 'inputs.nope' })]);
    expect(
      (await call('POST', `/api/v1/${TENANT}/executions/company.team/missing`, { body: '{}', contentType: 'application/json' }))
        .status,
    ).toBe(404);
  });

  it('shows task runs with their attempts, worker and queue', async () => {
    const { json } = await createExecution();
    const now = new Date();
    await api.repositories.executions.update(TENANT, json.id, 0, {
      state: 'RUNNING',
      stateHistories: [
        { state: 'CREATED', date: now },
        { state: 'RUNNING', date: now },
      ],
      taskRuns: [
        {
          id: `${json.id}-say`,
          executionId: json.id,
          taskId: 'say',
          parentTaskRunId: null,
          value: null,
          state: 'SUCCESS',
          stateHistories: [{ state: 'SUCCESS', date: now }],
          outputs: { greeting: 'hello spec' },
          workerQueueId: 'default',
          workerSelector: null,
          dispatchReason: null,
          error: null,
          attempts: [
            {
              attempt: 1,
              workerId: 'w-1',
              workerQueueId: 'default',
              state: 'SUCCESS',
              outputs: { greeting: 'hello spec' },
              error: null,
              startedAt: now,
              endedAt: now,
            },
          ],
        },
      ],
    });
    const shown = await call('GET', `/api/v1/${TENANT}/executions/${json.id}`);
    expect(shown.status).toBe(200);
    expect(shown.json).toMatchObject({
      id: json.id,
      state: { current: 'RUNNING' },
      outputs: {},
      taskRunList: [
        {
          id: `${json.id}-say`,
          taskId: 'say',
          parentTaskRunId: null,
          value: null,
          state: { current: 'SUCCESS' },
          error: null,
          attempts: [{ attempt: 1, workerId: 'w-1', workerQueueId: 'default', outputs: { greeting: 'hello spec' } }],
        },
      ],
    });
    const search = await call('GET', `/api/v1/${TENANT}/executions/search?flowId=hello&state=RUNNING`);
    expect(search.json.results.map((execution: { id: string }) => execution.id)).toContain(json.id);
    expect((await call('GET', `/api/v1/${TENANT}/executions/${randomUUID()}`)).status).toBe(404);
  });

  it("refuses a resume whose inputs do not match the paused task's onResume (422 naming the input)", async () => {
    const source =
      'id: approval\nnamespace: company.team\ntasks:\n  - id: wait\n    type: io.kestra.plugin.core.flow.Pause\n' +
      '    onResume:\n      - { id: approved, type: BOOLEAN }\n';
    expect((await postFlow(source)).status).toBe(201);
    const created = await call('POST', `/api/v1/${TENANT}/executions/company.team/approval`, {
      body: '{}',
      contentType: 'application/json',
    });
    const id = created.json.id as string;
    const now = new Date();
    const current = await api.repositories.executions.get(TENANT, id);
    await api.repositories.executions.update(TENANT, id, current.version, {
      state: 'PAUSED',
      stateHistories: [...current.stateHistories, { state: 'PAUSED', date: now }],
      taskRuns: [
        {
          id: `${id}:wait`,
          executionId: id,
          taskId: 'wait',
          parentTaskRunId: null,
          value: null,
          state: 'PAUSED',
          stateHistories: [{ state: 'PAUSED', date: now }],
          outputs: null,
          workerQueueId: null,
          workerSelector: null,
          dispatchReason: null,
          error: null,
          attempts: [],
        },
      ],
    });
    const refused = await call('POST', `/api/v1/${TENANT}/executions/${id}/resume`, {
      body: '{"inputs":{"approved":"perhaps"}}',
      contentType: 'application/json',
    });
    expect(refused.status).toBe(422);
    expect(refused.json.errors).toEqual([expect.objectContaining({ path: 'inputs.approved' })]);
    const missing = await call('POST', `/api/v1/${TENANT}/executions/${id}/resume`);
    expect(missing.json.errors).toEqual([{ path: 'inputs.approved', message: 'required' }]);
    const resumed = await call('POST', `/api/v1/${TENANT}/executions/${id}/resume`, {
      body: '{"inputs":{"approved":true}}',
      contentType: 'application/json',
    });
    expect(resumed.status).toBe(204);
  });

  it('kill answers 202 and publishes execution.kill; resume and restart check the state (204/200 or 409)', async () => {
    const { json } = await createExecution();
    expect((await call('DELETE', `/api/v1/${TENANT}/executions/${json.id}/kill`)).status).toBe(202);
    expect((await eventFor('execution.kill', json.id)).payload.executionId).toBe(json.id);

    const notPaused = await call('POST', `/api/v1/${TENANT}/executions/${json.id}/resume`);
    expect(notPaused.status).toBe(409);
    expect(notPaused.json.detail).toContain('not PAUSED');
    expect((await call('POST', `/api/v1/${TENANT}/executions/${json.id}/restart`)).status).toBe(409);

    await executorMoves(json.id, 'PAUSED');
    const resumed = await call('POST', `/api/v1/${TENANT}/executions/${json.id}/resume`, {
      body: '{"inputs":{"ok":true}}',
      contentType: 'application/json',
    });
    expect(resumed.status).toBe(204);
    expect((await eventFor('execution.resume', json.id)).payload).toMatchObject({ inputs: { ok: true } });

    await executorMoves(json.id, 'FAILED');
    const restarted = await call('POST', `/api/v1/${TENANT}/executions/${json.id}/restart`);
    expect(restarted.status).toBe(200);
    expect(restarted.json.state.current).toBe('FAILED');
    expect((await eventFor('execution.restart', json.id)).payload).toMatchObject({ expectedVersion: 2 });
    expect((await call('DELETE', `/api/v1/${TENANT}/executions/${json.id}/kill`)).status).toBe(409);
  });

  it('?wait=true answers once an execution.updated says the execution ended', async () => {
    const waiting = createExecution('?wait=true&waitTimeout=PT50S');
    const created = await eventually('the waiting execution', () => {
      const ids = new Set(
        executorEvents.filter((event) => event.type === 'execution.created').map((event) => event.payload.executionId),
      );
      return [...ids].find((id) => !seenBeforeWait.has(id));
    });
    await executorMoves(created, 'RUNNING');
    await executorMoves(created, 'SUCCESS');
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ id: created, state: { current: 'SUCCESS' }, ended: true });
  });

  it('?wait=true answers with the execution the end update carried, without reading it; else it reads', async () => {
    const waitFor = async (carry?: (stored: ExecutionWithTaskRuns) => ExecutionWithTaskRuns) => {
      const waiting = createExecution('?wait=true&waitTimeout=PT50S');
      const created = await eventually('the waiting execution', () => {
        const ids = new Set(
          executorEvents.filter((event) => event.type === 'execution.created').map((event) => event.payload.executionId),
        );
        return [...ids].find((id) => !seenBeforeWait.has(id));
      });
      seenBeforeWait.add(created);
      await executorMoves(created, 'RUNNING');
      const statements = jest.spyOn(Pool.prototype, 'query');
      const reads = () =>
        statements.mock.calls.filter(([text]) => typeof text === 'string' && text.startsWith('SELECT e.id, e.tenant_id')).length;
      try {
        await executorMoves(created, 'SUCCESS', carry);
        const answer = await waiting;
        expect(answer.status).toBe(200);
        // The spec's own reads in executorMoves: one, and one more to build what it carries.
        const own = carry === undefined ? 1 : 2;
        return { answer, created, apiReads: reads() - own };
      } finally {
        statements.mockRestore();
      }
    };
    // What the update carried differs from the row (outputs): the answer is the carried one.
    const carried = await waitFor((stored) => ({ ...stored, outputs: { from: 'the update' } }));
    expect(carried.answer.json).toMatchObject({ id: carried.created, state: { current: 'SUCCESS' }, ended: true });
    expect(carried.answer.json.outputs).toEqual({ from: 'the update' });
    expect(carried.apiReads).toBe(0);

    // Without it, of another tenant, or not at the version the update announces: it reads the row.
    const fallbacks = [
      undefined,
      (stored: ExecutionWithTaskRuns) => ({ ...stored, tenantId: 'other', outputs: { from: 'the update' } }),
      (stored: ExecutionWithTaskRuns) => ({ ...stored, version: 0, outputs: { from: 'the update' } }),
    ];
    for (const carry of fallbacks) {
      const read = await waitFor(carry);
      expect(read.answer.json).toMatchObject({ id: read.created, state: { current: 'SUCCESS' }, ended: true });
      expect(read.answer.json.outputs).toEqual({});
      expect(read.apiReads).toBe(1);
    }
  });

  it('/follow streams the execution after each update until it ends', async () => {
    const { json } = await createExecution();
    const response = await fetch(`${api.baseUrl}/api/v1/${TENANT}/executions/${json.id}/follow`, {
      headers: { authorization: `Bearer ${api.adminToken}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = readEvents(response);
    expect(await events.next()).toMatchObject({ event: 'execution', data: { state: { current: 'CREATED' } } });
    await executorMoves(json.id, 'RUNNING');
    expect(await events.next()).toMatchObject({ event: 'execution', data: { state: { current: 'RUNNING' } } });
    await executorMoves(json.id, 'SUCCESS');
    expect(await events.next()).toMatchObject({ event: 'execution', data: { state: { current: 'SUCCESS' }, ended: true } });
    expect(await events.next()).toMatchObject({ event: 'end' });
    expect(await events.next()).toBeUndefined();
  });
});

describe('logs', () => {
  it('serves the stored lines of an execution, filtered by level and task run', async () => {
    const { json } = await createExecution();
    const at = (ms: number) => new Date(Date.parse('2026-11-30T01:00:00.000Z') + ms);
    await api.repositories.logs.appendBatch(TENANT, json.id, [
      { taskRunId: 'tr-1', attempt: 1, level: 'INFO', timestamp: at(0), message: 'starting' },
      { taskRunId: 'tr-1', attempt: 1, level: 'WARN', timestamp: at(1), message: 'slow disk' },
      { taskRunId: 'tr-2', attempt: 1, level: 'ERROR', timestamp: at(2), message: 'failed' },
    ]);
    const all = await call('GET', `/api/v1/${TENANT}/logs/${json.id}`);
    expect(all.json.map((line: { message: string }) => line.message)).toEqual(['starting', 'slow disk', 'failed']);
    const warnings = await call('GET', `/api/v1/${TENANT}/logs/${json.id}?minLevel=WARN&taskRunId=tr-1`);
    expect(warnings.json).toEqual([
      {
        executionId: json.id,
        taskRunId: 'tr-1',
        attempt: 1,
        level: 'WARN',
        timestamp: at(1).toISOString(),
        message: 'slow disk',
      },
    ]);
    expect((await call('GET', `/api/v1/${TENANT}/logs/${json.id}?minLevel=LOUD`)).json).toMatchObject({
      status: 400,
      errors: [{ path: 'minLevel' }],
    });
  });
});

const seenBeforeWait = new Set<string>();
beforeEach(() => {
  for (const event of executorEvents) if (event.type === 'execution.created') seenBeforeWait.add(event.payload.executionId);
});

interface ReceivedEvent {
  event: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- event data is inspected field by field
  data: any;
}

/** Reads server-sent events one at a time; undefined once the server ended the stream. */
function readEvents(response: Response): { next(): Promise<ReceivedEvent | undefined> } {
  if (response.body === null) throw new Error('the event stream has no body');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    async next() {
      for (;;) {
        const boundary = buffer.indexOf('\n\n');
        if (boundary >= 0) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const fields = new Map(
            block
              .split('\n')
              .filter((line) => !line.startsWith(':'))
              .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
          );
          if (!fields.has('event')) continue;
          return { event: fields.get('event') ?? '', data: JSON.parse(fields.get('data') ?? 'null') };
        }
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffer += decoder.decode(value, { stream: true });
      }
    },
  };
}

describe('executions from a multipart form', () => {
  const TYPED_FLOW_YAML = `id: typed
namespace: company.team
inputs:
  - { id: name, type: STRING }
  - { id: count, type: INT }
  - { id: verbose, type: BOOLEAN, defaults: false }
tasks:
  - id: say
    type: io.kestra.plugin.core.log.Log
    message: "{{ inputs.name }} x{{ inputs.count }}"
`;
  const typedPath = `/api/v1/${TENANT}/executions/company.team/typed`;

  beforeAll(async () => {
    expect((await postFlow(TYPED_FLOW_YAML)).status).toBe(201);
  });

  function form(fields: ReadonlyArray<readonly [string, string]>): FormData {
    const data = new FormData();
    for (const [name, value] of fields) data.append(name, value);
    return data;
  }

  async function postForm(path: string, body: FormData | string, contentType?: string) {
    const headers: Record<string, string> = { authorization: `Bearer ${api.adminToken}` };
    // FormData sets its own multipart Content-Type with the boundary.
    if (contentType !== undefined) headers['content-type'] = contentType;
    const response = await fetch(`${api.baseUrl}${path}`, { method: 'POST', headers, body });
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are inspected field by field in the assertions
      json: (await response.json()) as any,
    };
  }

  it('creates the execution with the inputs coerced to the flow types, labels from fields and the query, and publishes execution.created', async () => {
    const created = await postForm(
      `${typedPath}?labels=source:query&labels=team:overridden`,
      form([
        ['name', 'multipart'],
        ['count', '42'],
        ['verbose', 'TRUE'],
        ['labels', 'team:qa'],
        ['labels', 'ticket:LAN-1:b'],
      ]),
    );
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({
      state: { current: 'CREATED' },
      flowId: 'typed',
      inputs: { name: 'multipart', count: 42, verbose: true },
      labels: { team: 'qa', ticket: 'LAN-1:b', source: 'query' },
    });
    const stored = await api.repositories.executions.get(TENANT, created.json.id);
    expect(stored.inputs).toEqual({ name: 'multipart', count: 42, verbose: true });
    const event = await eventFor('execution.created', created.json.id);
    expect(event.payload).toMatchObject({
      flowId: 'typed',
      inputs: { name: 'multipart', count: 42, verbose: true },
      labels: { team: 'qa' },
    });
  });

  it('?wait=true with a form answers once the execution ended', async () => {
    const run = randomUUID();
    const waiting = postForm(
      `${typedPath}?wait=true&waitTimeout=PT50S`,
      form([
        ['name', 'waiter'],
        ['count', '1'],
        ['labels', `run:${run}`],
      ]),
    );
    const created = await eventually('the waiting execution', () => {
      const event = executorEvents.find(
        (candidate) => candidate.type === 'execution.created' && candidate.payload.labels?.['run'] === run,
      );
      return event?.payload.executionId;
    });
    await executorMoves(created, 'RUNNING');
    await executorMoves(created, 'SUCCESS');
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      id: created,
      state: { current: 'SUCCESS' },
      ended: true,
      inputs: { name: 'waiter', count: 1, verbose: false },
    });
  });

  it('refuses a value that does not fit the input type (422 naming the input) and a label without a key (400)', async () => {
    const wrongType = await postForm(
      typedPath,
      form([
        ['name', 'x'],
        ['count', 'many'],
      ]),
    );
    expect(wrongType.status).toBe(422);
    expect(wrongType.contentType).toContain('application/problem+json');
    expect(wrongType.json.errors).toEqual([{ path: 'inputs.count', message: expect.stringContaining('integer') }]);
    const badLabel = await postForm(
      typedPath,
      form([
        ['name', 'x'],
        ['count', '1'],
        ['labels', 'no-colon'],
      ]),
    );
    expect(badLabel.status).toBe(400);
    expect(badLabel.json.errors).toEqual([{ path: 'labels[0]', message: expect.stringContaining('key:value') }]);
  });

  it('refuses a file part with a 422 naming the input when the API has no internal storage, rather than dropping it', async () => {
    const data = form([
      ['name', 'x'],
      ['count', '1'],
    ]);
    data.append('report', new Blob(['a,b\n1,2\n'], { type: 'text/csv' }), 'report.csv');
    const refused = await postForm(typedPath, data);
    expect(refused.status).toBe(422);
    expect(refused.json.errors).toEqual([
      { path: 'inputs.report', message: 'file inputs need internal storage (LANNER_STORAGE_TYPE)' },
    ]);
  });

  it('refuses a malformed form (400 saying what is wrong) and one over the body limit (413)', async () => {
    const unterminated = await postForm(
      typedPath,
      '--b0undary\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--b0undary\r\nContent-Disposition: form-data; name="count"\r\n\r\n1',
      'multipart/form-data; boundary=b0undary',
    );
    expect(unterminated.status).toBe(400);
    expect(unterminated.json.errors).toEqual([{ path: 'body', message: 'ends before the closing multipart boundary' }]);
    const noBoundary = await postForm(typedPath, 'name=x', 'multipart/form-data');
    expect(noBoundary.status).toBe(400);
    expect(noBoundary.json.errors).toEqual([
      { path: 'headers.content-type', message: 'multipart/form-data needs a boundary parameter' },
    ]);
    const tooLarge = await postForm(
      typedPath,
      form([
        ['name', 'x'.repeat(200 * 1024)],
        ['count', '1'],
      ]),
    );
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.json).toMatchObject({ status: 413, detail: expect.stringContaining(`${100 * 1024} bytes`) });
    // The same limit as a JSON run request.
    const jsonTooLarge = await call('POST', typedPath, {
      body: JSON.stringify({ inputs: { name: 'x'.repeat(100 * 1024), count: 1 } }),
      contentType: 'application/json',
    });
    expect(jsonTooLarge.status).toBe(413);
    const justUnder = await postForm(
      typedPath,
      form([
        ['name', 'y'.repeat(90 * 1024)],
        ['count', '1'],
      ]),
    );
    expect(justUnder.status).toBe(200);
    // Nothing of the refused requests was created.
    const page = await api.repositories.executions.search(TENANT, { flowId: 'typed', page: 1, size: 100 });
    expect(page.results.every((execution) => (execution.inputs as Record<string, unknown>)['name'] !== 'x')).toBe(true);
  });
});
