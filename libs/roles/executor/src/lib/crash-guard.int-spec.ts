import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { QUEUE_SCHEMA_VERSIONS, type ExecutorEvent } from '@lanner/frames';
import type { StoredJson } from '@lanner/model';
import { createInProcessQueue, type QueuePort } from '@lanner/queue';
import { applyMigrations, openRepositories, type Repositories } from '@lanner/repository';
import { createProcessLogger } from '@lanner/runtime';
import { pause, requiredEnv } from '@lanner/testing';
import { parsedFlow } from '../testing/parsed-flow';
import { CrashGuard } from './crash-guard';
import { ExecutionProcessor } from './execution-processor';
import { executorOptions, executorTopics } from './executor-options';

// The crash guard across process lives, on the real PostgreSQL of the dev services:
// each life is a new CrashGuard (and processor) on the same database, as each start
// of an executor process is. A life that "dies" inside a processing leaves that
// processing unfinished, as SIGKILL does; what the next life finds is what a killed
// process leaves in the database. (apps/e2e crash-loop-quarantine kills real processes.)

const run = randomBytes(4).toString('hex');
const TENANT = 'main';
const NAMESPACE = 'crash.guard';
const FLOW = `
id: held
namespace: ${NAMESPACE}
tasks:
  - id: approval
    type: io.kestra.plugin.core.flow.Pause
  - id: after
    type: io.kestra.plugin.core.log.Log
    message: after
`;

let serverUrl: string;
let databaseName: string;
let repositories: Repositories;
let queue: QueuePort;
const logger = createProcessLogger('executor', 'warn');
const options = executorOptions({ topics: executorTopics(`crash-guard-${run}.`) });

beforeAll(async () => {
  serverUrl = requiredEnv('DATABASE_URL');
  databaseName = `lanner_crash_guard_${run}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${databaseName}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  await applyMigrations(url.toString());
  repositories = await openRepositories(url.toString(), { poolSize: 4 });
  queue = createInProcessQueue({ logger });
  await queue.createTopics(options.topics.ensured.map((topic) => ({ topic, partitions: 1 })));
});

afterAll(async () => {
  await queue?.close();
  await repositories?.close();
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}, 60_000);

async function pausedExecution(): Promise<string> {
  const flow = parsedFlow(FLOW);
  const record = await repositories.flows.saveRevision(TENANT, {
    namespace: NAMESPACE,
    flowId: 'held',
    source: FLOW,
    definition: JSON.parse(JSON.stringify(flow)) as StoredJson,
  });
  const id = randomUUID();
  await repositories.executions.create(TENANT, {
    id,
    namespace: NAMESPACE,
    flowId: 'held',
    flowRevision: record.revision,
    state: 'CREATED',
    stateHistories: [{ state: 'CREATED', date: new Date() }],
    inputs: {},
    labels: {},
  });
  await new ExecutionProcessor(repositories, queue, options).process(created(id, record.revision));
  expect((await repositories.executions.get(TENANT, id)).state).toBe('PAUSED');
  return id;
}

function created(executionId: string, flowRevision: number): ExecutorEvent {
  return {
    schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.created'],
    messageId: `${executionId}:created`,
    type: 'execution.created',
    occurredAt: new Date().toISOString(),
    payload: { tenantId: TENANT, executionId, namespace: NAMESPACE, flowId: 'held', flowRevision, inputs: {}, labels: {} },
  };
}

function resume(executionId: string): ExecutorEvent {
  return {
    schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.resume'],
    messageId: `${executionId}:resume`,
    type: 'execution.resume',
    occurredAt: new Date().toISOString(),
    payload: { tenantId: TENANT, executionId },
  };
}

function restart(executionId: string, expectedVersion: number): ExecutorEvent {
  return {
    schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.restart'],
    messageId: `${executionId}:restart:${expectedVersion}`,
    type: 'execution.restart',
    occurredAt: new Date().toISOString(),
    payload: { tenantId: TENANT, executionId, expectedVersion },
  };
}

/** One start of an executor process: its guard reviews what the previous lives left. */
async function startLife(): Promise<{ guard: CrashGuard; processor: ExecutionProcessor }> {
  const processor = new ExecutionProcessor(repositories, queue, options);
  // As standalone runs it (the in-process queue forgets its messages at a stop).
  const guard = new CrashGuard(repositories, false);
  await guard.atStart((tenantId, executionId, reason) => processor.quarantine(tenantId, executionId, reason));
  return { guard, processor };
}

/** The life dies inside the processing of `event`: the processing never finishes. */
async function dieWhileProcessing(guard: CrashGuard, event: ExecutorEvent): Promise<void> {
  void guard.guard(event, () => new Promise<void>(() => undefined));
  const deadline = Date.now() + 10_000;
  while ((await repositories.processingMarks.get(TENANT, event.payload.executionId))?.inProgress?.messageId !== event.messageId) {
    if (Date.now() > deadline) throw new Error('the processing was never marked');
    await pause(50);
  }
}

describe('the crash guard across executor restarts', () => {
  it('quarantines an execution whose processing stopped two lives, parks its events, and lets a restart through', async () => {
    const id = await pausedExecution();

    const second = await startLife();
    await dieWhileProcessing(second.guard, resume(id));
    const third = await startLife();
    expect(await repositories.processingMarks.get(TENANT, id)).toMatchObject({ crashes: 1 });
    expect((await repositories.executions.get(TENANT, id)).state).toBe('PAUSED');
    await dieWhileProcessing(third.guard, resume(id));

    const fourth = await startLife();
    const quarantined = await repositories.executions.get(TENANT, id);
    expect(quarantined.state).toBe('FAILED');
    expect(quarantined.error).toMatch(/^quarantined: the executor stopped twice while processing this execution after a restart/);
    const approval = quarantined.taskRuns.find((run) => run.taskId === 'approval');
    expect(approval?.state).toBe('FAILED');
    expect(approval?.error).toMatch(
      /^quarantined: the executor stopped twice while processing this execution after a restart \(last at .*, handling 'execution.resume'\)/,
    );
    expect(quarantined.taskRuns.some((run) => run.taskId === 'after')).toBe(false);
    expect((await repositories.processingMarks.listParked(TENANT, id)).map((parked) => parked.messageType)).toEqual([
      'execution.resume',
    ]);

    // Redelivered and new events alike are parked, never processed.
    const processed: string[] = [];
    const record = (event: ExecutorEvent) => async () => void processed.push(event.type);
    await fourth.guard.guard(resume(id), record(resume(id)));
    const kill: ExecutorEvent = {
      ...resume(id),
      messageId: `${id}:kill`,
      type: 'execution.kill',
      schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.kill'],
      payload: { tenantId: TENANT, executionId: id },
    };
    await fourth.guard.guard(kill, record(kill));
    expect(processed).toEqual([]);
    expect((await repositories.processingMarks.listParked(TENANT, id)).map((parked) => parked.messageType).sort()).toEqual([
      'execution.kill',
      'execution.resume',
    ]);

    // A user's restart goes through, and lifts the quarantine (its crashes stay counted).
    await fourth.guard.guard(restart(id, quarantined.version), () => fourth.processor.process(restart(id, quarantined.version)));
    const restarted = await repositories.executions.get(TENANT, id);
    expect(restarted.state).not.toBe('FAILED');
    // Running again, it no longer says it failed.
    expect(restarted.error).toBeNull();
    expect(await repositories.processingMarks.get(TENANT, id)).toMatchObject({ crashes: 2 });
    expect((await repositories.processingMarks.get(TENANT, id))?.quarantinedAt).toBeUndefined();
  });

  it('leaves no record of an execution whose watched processing finished', async () => {
    const id = await pausedExecution();
    const life = await startLife();
    await life.guard.guard(resume(id), () => life.processor.process(resume(id)));
    expect(await repositories.processingMarks.get(TENANT, id)).toBeUndefined();
    expect((await repositories.executions.get(TENANT, id)).taskRuns.find((run) => run.taskId === 'approval')?.state).toBe(
      'SUCCESS',
    );
    // The next start finds nothing to count.
    await startLife();
    expect(await repositories.processingMarks.get(TENANT, id)).toBeUndefined();
  });
});
