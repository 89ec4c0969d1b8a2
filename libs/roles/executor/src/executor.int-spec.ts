import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';
import {
  broadcastCodec,
  decodeQueueMessage,
  encodeQueueMessage,
  executionUpdateCodec,
  executorEventCodec,
  jobMessageId,
  QUEUE_SCHEMA_VERSIONS,
  workerJobCodec,
  type ExecutionUpdatedMessage,
  type ExecutorEvent,
} from '@lanner/frames';
import type { ExecutionWithTaskRuns, StoredJson } from '@lanner/model';
import { createKafkaQueue, type QueuePort, type QueueSubscription } from '@lanner/queue';
import { applyMigrations, openRepositories, type Repositories } from '@lanner/repository';
import { createProcessLogger, loadRoleConfig, RuntimeModule, serverRoleSettings } from '@lanner/runtime';
import { pause, requiredEnv } from '@lanner/testing';
import { ExecutorRoleModule, ExecutorService, executorTopics } from './index';
import { parsedFlow } from './testing/parsed-flow';
import { resultEvent, startedEvent, type Answers, type JobPayload, type JobScript } from './testing/executor-harness';

// The executor in-process with its real role module, against the real Kafka and
// PostgreSQL of the dev services. A stand-in in this file plays the controller
// and its worker: it consumes the jobs and answers on `lanner.executor` as a
// controller relays a worker's frames. Topic names carry a prefix of this run,
// so other processes on the same broker neither see nor take these messages.

const TENANT = 'main';
const NAMESPACE = 'company.team';
const run = randomBytes(4).toString('hex');
const topics = executorTopics(`test-${run}.`);

let serverUrl: string;
let databaseName: string;
let repositories: Repositories;
let queue: QueuePort;
let app: INestApplicationContext;
let standIn: QueueSubscription;
const scripts = new Map<string, JobScript>();
const killScripts = new Map<string, (taskRunId: string, attempt: number) => Promise<void>>();
const jobs: JobPayload[] = [];
const kills: { executionId: string; taskRunId: string; attempt: number }[] = [];
const updates: ExecutionUpdatedMessage['payload'][] = [];
const sentResults = new Map<string, ExecutorEvent>();

async function publishToExecutor(message: ExecutorEvent): Promise<void> {
  await queue.publish(topics.executor, [encodeQueueMessage(executorEventCodec, message)]);
}

const answers: Answers = {
  started: (job) => publishToExecutor(startedEvent(job)),
  async result(job, state, outputs = {}, errorMessage) {
    const message = resultEvent(job, state, outputs, errorMessage);
    sentResults.set(jobMessageId(job.taskRunId, job.attempt), message);
    await publishToExecutor(message);
  },
};

async function createDatabase(): Promise<string> {
  serverUrl = requiredEnv('DATABASE_URL');
  databaseName = `lanner_executor_${run}`;
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
  return url.toString();
}

async function dropDatabase(): Promise<void> {
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

let startExecutor: (rebuildPendingWorkAtStart: boolean) => Promise<INestApplicationContext>;

beforeAll(async () => {
  const brokers = requiredEnv('KAFKA_BROKERS');
  const databaseUrl = await createDatabase();
  repositories = await openRepositories(databaseUrl, { poolSize: 4 });
  await repositories.workerGroups.seedReserved();

  const config = loadRoleConfig('executor', {
    DATABASE_URL: databaseUrl,
    KAFKA_BROKERS: brokers,
    LANNER_KAFKA_CLIENT_ID: `executor-spec-${run}`,
    LANNER_EXPRESSION_GLOBALS: '{"team": "data"}',
  });
  // Kestra's envs: read from the process environment when the role starts.
  process.env['ENV_EXECUTOR_SPEC_REGION'] = 'eu-west';
  const logger = createProcessLogger('executor', 'warn');
  startExecutor = async (rebuildPendingWorkAtStart) => {
    const options = { timerIntervalMs: 200, groupId: `lanner-executor-spec-${run}`, topics, rebuildPendingWorkAtStart };
    @Module({ imports: [RuntimeModule.forRoot(config, logger), ExecutorRoleModule.forRoot(serverRoleSettings(config), options)] })
    class ExecutorSpecModule {}
    const context = await NestFactory.createApplicationContext(ExecutorSpecModule, { logger: false, abortOnError: false });
    await context.init();
    await context.get(ExecutorService).whenStarted();
    return context;
  };
  queue = createKafkaQueue({ brokers: config.kafka.brokers, clientId: `executor-spec-stand-in-${run}`, logger });

  app = await startExecutor(false);

  standIn = await queue.subscribe({
    groupId: `stand-in-${run}`,
    topics: [topics.workerJobs('default'), topics.resubmittedJobs('default'), topics.broadcast, topics.executionUpdates],
    fromBeginning: true,
    handler: async (message) => {
      if (message.topic === topics.executionUpdates) {
        updates.push(decodeQueueMessage(executionUpdateCodec, message.value).payload);
      } else if (message.topic === topics.broadcast) {
        const broadcast = decodeQueueMessage(broadcastCodec, message.value);
        if (broadcast.type !== 'broadcast.kill') return;
        kills.push(broadcast.payload);
        await killScripts.get(broadcast.payload.executionId)?.(broadcast.payload.taskRunId, broadcast.payload.attempt);
      } else {
        const job = decodeQueueMessage(workerJobCodec, message.value).payload;
        jobs.push(job);
        // Jobs of executions the executor created itself (subflows) are simply answered.
        await (scripts.get(job.executionId) ?? answerEverything)(job, answers);
      }
    },
  });
}, 120_000);

afterAll(async () => {
  await standIn?.close();
  await app?.close();
  await queue?.deleteTopics([...topics.ensured]).catch(() => undefined);
  await queue?.close();
  await repositories?.close();
  if (databaseName) await dropDatabase();
}, 60_000);

async function saveFlow(flowId: string, source: string): Promise<number> {
  const flow = parsedFlow(source);
  const record = await repositories.flows.create(TENANT, {
    namespace: NAMESPACE,
    flowId,
    source,
    definition: JSON.parse(JSON.stringify(flow)) as StoredJson,
  });
  return record.revision;
}

/** Submits as the API does: the row in CREATED, then `execution.created` on the executor topic. */
async function submit(flowId: string, revision: number, inputs: Record<string, StoredJson>, script: JobScript): Promise<string> {
  return submitWithId(randomUUID(), flowId, revision, inputs, script);
}

async function submitWithId(
  executionId: string,
  flowId: string,
  revision: number,
  inputs: Record<string, StoredJson>,
  script: JobScript,
): Promise<string> {
  scripts.set(executionId, script);
  await repositories.executions.create(TENANT, {
    id: executionId,
    namespace: NAMESPACE,
    flowId,
    flowRevision: revision,
    state: 'CREATED',
    stateHistories: [{ state: 'CREATED', date: new Date() }],
    inputs,
    labels: {},
  });
  await publishToExecutor({
    schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.created'],
    messageId: `${executionId}:created`,
    type: 'execution.created',
    occurredAt: new Date().toISOString(),
    payload: { tenantId: TENANT, executionId, namespace: NAMESPACE, flowId, flowRevision: revision, inputs, labels: {} },
  });
  return executionId;
}

/** Polls the repository until `done` holds; a deadline that passes fails the test (it is not a timing assertion). */
async function eventually(
  executionId: string,
  done: (execution: ExecutionWithTaskRuns) => boolean,
  what: string,
): Promise<ExecutionWithTaskRuns> {
  const deadline = Date.now() + 40_000;
  let execution = await repositories.executions.get(TENANT, executionId);
  while (!done(execution)) {
    if (Date.now() > deadline)
      throw new Error(`execution ${executionId} never ${what}; it is ${execution.state} (version ${execution.version})`);
    await pause(200);
    execution = await repositories.executions.get(TENANT, executionId);
  }
  return execution;
}

const ended = (execution: ExecutionWithTaskRuns) =>
  ['SUCCESS', 'WARNING', 'FAILED', 'KILLED', 'CANCELLED'].includes(execution.state);

async function untilUpdated(executionId: string, version: number): Promise<ExecutionUpdatedMessage['payload'][]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const seen = updates.filter((update) => update.executionId === executionId);
    if (seen.some((update) => update.version === version)) return seen;
    if (Date.now() > deadline) throw new Error(`no execution.updated for ${executionId} version ${version}`);
    await pause(100);
  }
}

const TWO_TASKS = `
id: two-tasks
namespace: ${NAMESPACE}
inputs:
  - id: name
    type: STRING
tasks:
  - id: hello
    type: io.kestra.plugin.core.log.Log
    message: "hello {{ inputs.name }} with {{ secret('API_TOKEN') }}"
  - id: answer
    type: io.kestra.plugin.core.debug.Return
    format: "{{ inputs.name }} said hi"
`;

const answerEverything: JobScript = async (job, reply) => {
  await reply.started(job);
  await reply.result(job, 'SUCCESS', job.taskType.endsWith('Return') ? { value: String(job.taskDefinition['format']) } : {});
};

describe('the executor', () => {
  let twoTasksRevision: number;
  beforeAll(async () => {
    twoTasksRevision = await saveFlow('two-tasks', TWO_TASKS);
  });

  it('runs a Log then a Return task on a worker to SUCCESS and stores the task runs, attempts and outputs', async () => {
    const executionId = await submit('two-tasks', twoTasksRevision, { name: 'ada' }, answerEverything);

    const execution = await eventually(executionId, ended, 'ended');

    expect(execution.state).toBe('SUCCESS');
    expect(execution.taskRuns.map((taskRun) => [taskRun.taskId, taskRun.state])).toEqual([
      ['hello', 'SUCCESS'],
      ['answer', 'SUCCESS'],
    ]);
    const answer = execution.taskRuns[1];
    expect(answer.outputs).toEqual({ value: 'ada said hi' });
    expect(answer.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        state: 'SUCCESS',
        workerId: 'stand-in-worker',
        workerQueueId: 'default',
        outputs: { value: 'ada said hi' },
      }),
    ]);
    expect(answer.workerQueueId).toBe('default');

    // The jobs were rendered late: templates filled in, secret() left for the worker.
    const hello = jobs.find((job) => job.executionId === executionId && job.taskId === 'hello');
    expect(hello?.taskDefinition['message']).toBe("hello ada with {{ secret('API_TOKEN') }}");
    expect(hello?.workerQueueId).toBe('default');

    // Every stored change was announced, the last one as ended, with the stored version.
    const seen = await untilUpdated(executionId, execution.version);
    expect(seen.map((update) => update.state)).toEqual(expect.arrayContaining(['RUNNING', 'SUCCESS']));
    expect(seen.find((update) => update.version === execution.version)).toEqual(
      expect.objectContaining({ tenantId: TENANT, namespace: NAMESPACE, flowId: 'two-tasks', state: 'SUCCESS', ended: true }),
    );
  });

  it('skips a message it can never read and goes on with the next one of the same execution', async () => {
    const executionId = randomUUID();
    // Same key, so same partition: a poison message that blocked it would stop the execution below.
    await queue.publish(topics.executor, [{ key: executionId, value: Buffer.from('{"type":"execution.created","payload":') }]);
    const ghostKill = encodeQueueMessage(executorEventCodec, {
      schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.kill'],
      messageId: 'ghost:kill',
      type: 'execution.kill',
      occurredAt: new Date().toISOString(),
      payload: { tenantId: TENANT, executionId: `ghost-${executionId}` },
    });
    await queue.publish(topics.executor, [{ ...ghostKill, key: executionId }]);
    await queue.publish(topics.executor, [
      { key: executionId, value: Buffer.from(JSON.stringify({ schemaVersion: 1, type: 'task-run.result', payload: {} })) },
    ]);
    const submitted = await submitWithId(executionId, 'two-tasks', twoTasksRevision, { name: 'eve' }, answerEverything);

    const execution = await eventually(submitted, ended, 'ended');

    // Neither the unreadable messages nor the kill of an execution that does not exist held the partition.
    expect(execution.state).toBe('SUCCESS');
  });

  it('runs a subflow as a child execution and continues the parent when the child ends', async () => {
    const revision = await saveFlow(
      'parent',
      `
id: parent
namespace: ${NAMESPACE}
tasks:
  - id: call
    type: io.kestra.plugin.core.flow.Subflow
    namespace: ${NAMESPACE}
    flowId: two-tasks
    inputs:
      name: child
    wait: true
`,
    );
    const executionId = await submit('parent', revision, {}, answerEverything);

    const parent = await eventually(executionId, ended, 'ended');

    expect(parent.state).toBe('SUCCESS');
    expect(parent.taskRuns.map((taskRun) => [taskRun.taskId, taskRun.state])).toEqual([['call', 'SUCCESS']]);
    const children = (await repositories.executions.search(TENANT, { flowId: 'two-tasks', page: 1, size: 100 })).results.filter(
      (execution) => execution.parentExecutionId === executionId,
    );
    expect(children).toEqual([
      expect.objectContaining({ state: 'SUCCESS', parentTaskRunId: parent.taskRuns[0].id, inputs: { name: 'child' } }),
    ]);
  });

  it("renders a Subflow's deprecated outputs map against the ended child", async () => {
    const revision = await saveFlow(
      'parent-with-outputs-map',
      `
id: parent-with-outputs-map
namespace: ${NAMESPACE}
tasks:
  - id: call
    type: io.kestra.plugin.core.flow.Subflow
    namespace: ${NAMESPACE}
    flowId: two-tasks
    inputs:
      name: child
    outputs:
      said: "{{ outputs.answer.value }} in {{ flow.id }}"
`,
    );
    const executionId = await submit('parent-with-outputs-map', revision, {}, answerEverything);

    const parent = await eventually(executionId, ended, 'ended');

    expect(parent.state).toBe('SUCCESS');
    expect((parent.taskRuns[0].outputs as { outputs?: unknown }).outputs).toEqual({ said: 'child said hi in two-tasks' });
  });

  it("renders Kestra's envs and globals of the role's config and uuid() into a dispatched task", async () => {
    const revision = await saveFlow(
      'environment',
      `
id: environment
namespace: ${NAMESPACE}
tasks:
  - id: show
    type: io.kestra.plugin.core.debug.Return
    format: "{{ envs.executor_spec_region }} {{ globals.team }} {{ uuid() | length }} {{ 'database_url' in envs }}"
`,
    );
    const executionId = await submit('environment', revision, {}, answerEverything);

    const execution = await eventually(executionId, ended, 'ended');

    expect(execution.state).toBe('SUCCESS');
    expect(execution.taskRuns[0].outputs).toEqual({ value: 'eu-west data 36 false' });
  });

  it('changes nothing when a task-run result is delivered again', async () => {
    const executionId = await submit('two-tasks', twoTasksRevision, { name: 'bob' }, async (job, reply) => {
      await answerEverything(job, reply);
      // The same result again, as a redelivery after a lost commit would bring it.
      if (job.taskId === 'hello')
        await publishToExecutor(sentResults.get(jobMessageId(job.taskRunId, job.attempt)) as ExecutorEvent);
    });

    const execution = await eventually(executionId, ended, 'ended');

    expect(execution.state).toBe('SUCCESS');
    expect(execution.taskRuns.map((taskRun) => taskRun.attempts.length)).toEqual([1, 1]);
    // One job per task run: the duplicate dispatched nothing.
    expect(jobs.filter((job) => job.executionId === executionId).map((job) => job.taskId)).toEqual(['hello', 'answer']);
    const versions = (await untilUpdated(executionId, execution.version)).map((update) => update.version);
    expect(new Set(versions).size).toBe(versions.length);
  });

  it('retries a failed attempt after its retry interval and succeeds on the second attempt', async () => {
    const revision = await saveFlow(
      'flaky',
      `
id: flaky
namespace: ${NAMESPACE}
tasks:
  - id: flaky
    type: io.kestra.plugin.core.debug.Return
    format: "done"
    retry:
      type: constant
      interval: PT0.5S
      maxAttempts: 3
`,
    );
    const executionId = await submit('flaky', revision, {}, async (job, reply) => {
      await reply.started(job);
      if (job.attempt === 1) await reply.result(job, 'FAILED', {}, 'the service answered 503');
      else await reply.result(job, 'SUCCESS', { value: 'done' });
    });

    const execution = await eventually(executionId, ended, 'ended');

    expect(execution.state).toBe('SUCCESS');
    expect(execution.taskRuns[0].attempts).toEqual([
      expect.objectContaining({ attempt: 1, state: 'FAILED', error: { message: 'the service answered 503' } }),
      expect.objectContaining({ attempt: 2, state: 'SUCCESS', outputs: { value: 'done' } }),
    ]);
  });

  it('carries an ended execution in its last update exactly as the repository reads it, unless it is too long', async () => {
    const revision = await saveFlow(
      'carried',
      `
id: carried
namespace: ${NAMESPACE}
inputs:
  - id: name
    type: STRING
tasks:
  - id: flaky
    type: io.kestra.plugin.core.debug.Return
    format: "{{ inputs.name }}"
    retry:
      type: constant
      interval: PT0.5S
      maxAttempts: 3
  - id: answer
    type: io.kestra.plugin.core.debug.Return
    format: "{{ outputs.flaky.value }} said hi"
`,
    );
    const size = { answer: 'short' };
    const script: JobScript = async (job, reply) => {
      await reply.started(job);
      if (job.taskId === 'flaky' && job.attempt === 1) await reply.result(job, 'FAILED', {}, 'the service answered 503');
      else if (job.taskId === 'flaky') await reply.result(job, 'SUCCESS', { value: 'ada' });
      else await reply.result(job, 'SUCCESS', { value: size.answer === 'short' ? 'ada said hi' : 'x'.repeat(20_000) });
    };

    const executionId = await submit('carried', revision, { name: 'ada' }, script);
    const execution = await eventually(executionId, ended, 'ended');
    const last = (await untilUpdated(executionId, execution.version)).find((update) => update.version === execution.version);

    expect(last?.ended).toBe(true);
    expect(execution.taskRuns[0].attempts.map((attempt) => [attempt.state, attempt.error])).toEqual([
      ['FAILED', { message: 'the service answered 503' }],
      ['SUCCESS', null],
    ]);
    expect(execution.taskRuns[1].outputs).toEqual({ value: 'ada said hi' });
    // Dates, attempts, errors and outputs: what the update carries is what the repository reads after it.
    expect(last?.execution).toEqual(await repositories.executions.get(TENANT, executionId));
    expect(last?.execution?.updatedAt).toBeInstanceOf(Date);
    // Only the end carries it.
    const earlier = updates.filter((update) => update.executionId === executionId && update.version < execution.version);
    expect(earlier.length).toBeGreaterThan(0);
    expect(earlier.every((update) => update.execution === undefined)).toBe(true);

    // An execution too long for the bound ends with the hint alone.
    size.answer = 'long';
    const longId = await submit('carried', revision, { name: 'ada' }, script);
    const long = await eventually(longId, ended, 'ended');
    const longLast = (await untilUpdated(longId, long.version)).find((update) => update.version === long.version);
    expect(long.state).toBe('SUCCESS');
    expect(longLast).toEqual(expect.objectContaining({ state: 'SUCCESS', ended: true }));
    expect(longLast?.execution).toBeUndefined();
  });

  it('fails a task run whose worker never answers once its timeout passes, and asks to kill the job', async () => {
    const revision = await saveFlow(
      'silent',
      `
id: silent
namespace: ${NAMESPACE}
tasks:
  - id: wait-forever
    type: io.kestra.plugin.core.flow.Sleep
    duration: PT1H
    timeout: PT2S
`,
    );
    const executionId = await submit('silent', revision, {}, async (job, reply) => {
      await reply.started(job); // and never a result
    });

    const execution = await eventually(executionId, ended, 'ended');

    expect(execution.state).toBe('FAILED');
    expect(execution.taskRuns[0].state).toBe('FAILED');
    expect(execution.taskRuns[0].attempts[0].error).toEqual({ message: expect.stringContaining('Timed out after') });
    const taskRunId = execution.taskRuns[0].id;
    await eventually(executionId, () => kills.some((kill) => kill.taskRunId === taskRunId), 'had its job killed');
    expect(await repositories.timers.listForExecution(TENANT, executionId)).toEqual([]);
  });

  it('fails a flowable that runs past its timeout, kills the job under it and runs the errors branch, storing why', async () => {
    const revision = await saveFlow(
      'bounded',
      `
id: bounded
namespace: ${NAMESPACE}
tasks:
  - id: steps
    type: io.kestra.plugin.core.flow.Sequential
    timeout: PT2S
    tasks:
      - id: wait-forever
        type: io.kestra.plugin.core.flow.Sleep
        duration: PT1H
errors:
  - id: alert
    type: io.kestra.plugin.core.log.Log
    message: the steps timed out
`,
    );
    const executionId = await submit('bounded', revision, {}, async (job, reply) => {
      await reply.started(job);
      if (job.taskType.endsWith('Log')) await reply.result(job, 'SUCCESS', {});
    });

    const execution = await eventually(executionId, ended, 'ended');

    expect(execution.state).toBe('FAILED');
    const byTask = new Map(execution.taskRuns.map((taskRun) => [taskRun.taskId, taskRun]));
    expect(byTask.get('steps')).toMatchObject({ state: 'FAILED', error: 'Timed out after PT2S' });
    expect(byTask.get('wait-forever')).toMatchObject({ state: 'KILLED', error: null });
    expect(byTask.get('alert')?.state).toBe('SUCCESS');
    const killed = byTask.get('wait-forever')?.id;
    await eventually(executionId, () => kills.some((kill) => kill.taskRunId === killed), 'had its job killed');
    expect(await repositories.timers.listForExecution(TENANT, executionId)).toEqual([]);
  });

  it('words a job that nobody started before its deadline as its own timeout, even when that report comes before its timer', async () => {
    const revision = await saveFlow(
      'late',
      `
id: late
namespace: ${NAMESPACE}
tasks:
  - id: render
    type: io.kestra.plugin.core.debug.Return
    format: never
    timeout: PT1M
`,
    );
    // What a controller (or a worker) reports when it takes a job after its deadline, by its own clock.
    const executionId = await submit('late', revision, {}, async (job) => {
      const refused = resultEvent(
        job,
        'FAILED',
        {},
        `the job reached its deadline (${new Date().toISOString()}) before a worker could start it`,
      );
      await publishToExecutor({ ...refused, payload: { ...refused.payload, deadlinePassed: true } } as ExecutorEvent);
    });

    const execution = await eventually(executionId, ended, 'ended');

    expect(execution.state).toBe('FAILED');
    expect(execution.taskRuns[0].state).toBe('FAILED');
    expect(execution.taskRuns[0].attempts[0].error).toEqual({
      message: expect.stringMatching(/^Timed out after PT60S: no worker started the job on queue 'default'/),
    });
    // The timeout's timer was cancelled with it: it cannot end the task run a second time.
    expect(await repositories.timers.listForExecution(TENANT, executionId)).toEqual([]);
  });

  it('kills a running execution: broadcasts the kill and ends KILLED once the worker answers', async () => {
    const revision = await saveFlow(
      'long',
      `
id: long
namespace: ${NAMESPACE}
tasks:
  - id: long
    type: io.kestra.plugin.core.flow.Sleep
    duration: PT1H
`,
    );
    const executionId = await submit('long', revision, {}, async (job, reply) => {
      await reply.started(job);
      killScripts.set(job.executionId, async (taskRunId, attempt) => {
        if (taskRunId === job.taskRunId && attempt === job.attempt) await reply.result(job, 'KILLED', {}, 'killed on request');
      });
    });
    await eventually(executionId, (execution) => execution.taskRuns[0]?.state === 'RUNNING', 'ran its task');

    await publishToExecutor({
      schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.kill'],
      messageId: `${executionId}:kill`,
      type: 'execution.kill',
      occurredAt: new Date().toISOString(),
      payload: { tenantId: TENANT, executionId },
    });
    const execution = await eventually(executionId, ended, 'ended');

    expect(execution.state).toBe('KILLED');
    expect(execution.taskRuns[0].state).toBe('KILLED');
    expect(kills.filter((kill) => kill.executionId === executionId)).toEqual([
      expect.objectContaining({ taskRunId: execution.taskRuns[0].id, attempt: 1 }),
    ]);
  });

  it('rebuilds pending work at start for a queue that forgets its messages: unstarted executions and lost jobs', async () => {
    // Both as a restarted standalone finds them: a row whose execution.created was lost, and a job lost with its worker.
    const neverStarted = randomUUID();
    await repositories.executions.create(TENANT, {
      id: neverStarted,
      namespace: NAMESPACE,
      flowId: 'two-tasks',
      flowRevision: twoTasksRevision,
      state: 'CREATED',
      stateHistories: [{ state: 'CREATED', date: new Date() }],
      inputs: { name: 'zoe' },
      labels: {},
    });
    scripts.set(neverStarted, answerEverything);
    const revision = await saveFlow(
      'lost-job',
      `
id: lost-job
namespace: ${NAMESPACE}
tasks:
  - id: long
    type: io.kestra.plugin.core.flow.Sleep
    duration: PT1H
`,
    );
    const lostJob = await submit('lost-job', revision, {}, async (job, reply) => {
      await reply.started(job);
      if (job.attempt > 1) await reply.result(job, 'SUCCESS');
    });
    await eventually(lostJob, (execution) => execution.taskRuns[0]?.state === 'RUNNING', 'ran its task');

    const restarted = await startExecutor(true);
    try {
      const started = await eventually(neverStarted, ended, 'ended');
      const resubmitted = await eventually(lostJob, ended, 'ended');

      expect(started.state).toBe('SUCCESS');
      expect(resubmitted.state).toBe('SUCCESS');
      expect(resubmitted.taskRuns[0].attempts.map((attempt) => attempt.state)).toEqual(['RESUBMITTED', 'SUCCESS']);
    } finally {
      await restarted.close();
    }
  });
});
