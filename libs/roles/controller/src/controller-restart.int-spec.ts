import { randomBytes } from 'node:crypto';
import {
  broadcastCodec,
  decodeQueueMessage,
  encodeQueueMessage,
  executorEventCodec,
  QueueTopics,
  workerJobsTopic,
  type ExecutorEvent,
} from '@lanner/frames';
import type { TaskRunAttemptRecord, TaskRunRecord, TaskRunRecordState } from '@lanner/model';
import { createKafkaQueue, parseKafkaBrokers, type QueuePort } from '@lanner/queue';
import { openRepositories, type Repositories } from '@lanner/repository';
import { startController, stopController, tearDownControllerSpec, type ControllerProcess } from './testing/controller-process';
import { FakeWorker } from './testing/fake-worker';
import { createSpecDatabase, type SpecDatabase } from './testing/spec-database';
import { workerJobRecord } from './testing/spec-jobs';
import { eventually as eventuallyWithin, pause, requiredEnv } from './testing/spec-helpers';
import { unheldRowQuietMs } from './lib/ledger-reconciler';

// A controller that restarts keeps its promises: the job of a task run killed
// before the restart still never reaches a worker, and a lost job whose report
// did not go out is reported while the controller runs. The controller runs as
// its own process on the real Kafka (a namespace of this run) and a PostgreSQL
// database of its own; the spec plays the executor (it stores executions as the
// executor does, publishes jobs and kills, and reads `lanner.executor`) and a
// worker over real gRPC.

const run = randomBytes(4).toString('hex');
const namespace = `rs-${run}.`;
const queueId = `restart-${run}`;
const WAIT_MS = 30_000;
/** How long the spec lets the controller run before checking it did NOT do something; nothing is asserted about speed. */
const SETTLE_MS = 1_000;
/** The ledger reconciliation period of the spec's controllers (the default is 30 s). */
const RECONCILE_MS = 200;
/** The adoption grace of the spec's controllers (LANNER_WORKER_ADOPTION_GRACE_MS; 10 s by default). */
const ADOPTION_GRACE_MS = 1_000;
/** A row no stream here holds is reported lost again only after this long (one and a half graces). */
const QUIET_MS = unheldRowQuietMs(ADOPTION_GRACE_MS);

const eventually = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>, waitMs = WAIT_MS) =>
  eventuallyWithin(what, probe, { waitMs, pollMs: 100 });

let database: SpecDatabase | undefined;
let repositories: Repositories;
let queue: QueuePort;
let controller: ControllerProcess | undefined;
const workers: FakeWorker[] = [];
const executorEvents: ExecutorEvent[] = [];

const controllerEnv = (): NodeJS.ProcessEnv => ({
  DATABASE_URL: database?.url,
  KAFKA_BROKERS: requiredEnv('KAFKA_BROKERS'),
  LANNER_KAFKA_NAMESPACE: namespace,
  LANNER_ALLOW_ANONYMOUS_WORKERS: 'true',
  LANNER_JWT_SIGNING_KEY: 'restart-spec-signing-key-0123456789abcdef',
  LANNER_LEDGER_RECONCILE_INTERVAL_MS: String(RECONCILE_MS),
  LANNER_WORKER_ADOPTION_GRACE_MS: String(ADOPTION_GRACE_MS),
});

function started(): ControllerProcess {
  if (!controller) throw new Error('no controller is running');
  return controller;
}

function logLines(text: string): Record<string, unknown>[] {
  return started()
    .output()
    .split('\n')
    .filter((line) => line.includes(text))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function connectWorker(slots: number): FakeWorker {
  const worker = new FakeWorker(started().grpcPort, { heartbeatMs: 2_000, wait: { waitMs: WAIT_MS, pollMs: 100 } });
  workers.push(worker);
  worker.sendHello({ workerName: `restart-worker-${run}`, slots });
  worker.credit(slots);
  return worker;
}

const jobIds = (worker: FakeWorker) => worker.jobs().map((job) => job.taskRunId);

function eventsOf<T extends ExecutorEvent['type']>(type: T, taskRunId: string): Extract<ExecutorEvent, { type: T }>[] {
  return executorEvents.filter(
    (event): event is Extract<ExecutorEvent, { type: T }> =>
      event.type === type && 'taskRunId' in event.payload && event.payload.taskRunId === taskRunId,
  );
}

const t0 = new Date();

function attempt(state: TaskRunRecordState): TaskRunAttemptRecord {
  return {
    attempt: 1,
    workerId: null,
    workerQueueId: queueId,
    state,
    outputs: null,
    error: null,
    startedAt: null,
    endedAt: state === 'KILLED' ? new Date() : null,
  };
}

function taskRun(executionId: string, taskRunId: string, state: TaskRunRecordState): TaskRunRecord {
  return {
    id: taskRunId,
    executionId,
    taskId: 'step',
    parentTaskRunId: null,
    value: null,
    state,
    stateHistories: [{ state, date: new Date() }],
    outputs: null,
    workerQueueId: queueId,
    workerSelector: null,
    dispatchReason: 'no worker of the subscribed groups is connected',
    error: null,
    attempts: [attempt(state === 'KILLED' ? 'KILLED' : 'SUBMITTED')],
  };
}

/** What the executor does for a task run sent to a queue no worker serves: its state stored, its job on the topic. */
async function submit(taskRunId: string): Promise<void> {
  const executionId = `${taskRunId}-ex`;
  const created = await repositories.executions.create('main', {
    id: executionId,
    namespace: 'company.team',
    flowId: 'restart',
    flowRevision: 1,
    state: 'RUNNING',
    stateHistories: [{ state: 'RUNNING', date: t0 }],
  });
  await repositories.executions.update('main', executionId, created.version, {
    taskRuns: [taskRun(executionId, taskRunId, 'SUBMITTED')],
  });
  await queue.publish(workerJobsTopic(queueId), [
    workerJobRecord({ taskRunId, executionId, workerQueueId: queueId, flowId: 'restart', taskId: 'step', message: taskRunId }),
  ]);
}

/** What the executor does when a user kills the execution: the kill broadcast, then the attempt stored KILLED. */
async function kill(taskRunId: string, reason: string): Promise<void> {
  const executionId = `${taskRunId}-ex`;
  await queue.publish(QueueTopics.broadcast, [
    encodeQueueMessage(broadcastCodec, {
      schemaVersion: 1,
      messageId: `${taskRunId}:1:kill`,
      type: 'broadcast.kill',
      occurredAt: new Date().toISOString(),
      payload: { tenantId: 'main', executionId, taskRunId, attempt: 1, reason },
    }),
  ]);
  const stored = await repositories.executions.get('main', executionId);
  await repositories.executions.update('main', executionId, stored.version, {
    state: 'KILLED',
    taskRuns: [taskRun(executionId, taskRunId, 'KILLED')],
  });
}

beforeAll(async () => {
  database = await createSpecDatabase(`lanner_rs_spec_${run}`);
  repositories = await openRepositories(database.url);
  await repositories.workerGroups.seedReserved();
  await repositories.workerQueues.put({ id: queueId, tags: [queueId] });
  await repositories.workerGroups.putSubscription('default', { workerQueueId: queueId, mode: 'STRICT' });
  queue = createKafkaQueue({
    brokers: parseKafkaBrokers(requiredEnv('KAFKA_BROKERS')),
    clientId: `restart-spec-${run}`,
    namespace,
  });
  await queue.createTopics(
    [workerJobsTopic(queueId), QueueTopics.executor, QueueTopics.broadcast].map((topic) => ({ topic, partitions: 3 })),
  );
  await queue.subscribe({
    groupId: `restart-spec-executor-${run}`,
    topics: [QueueTopics.executor],
    fromBeginning: true,
    handler: async (message) => {
      executorEvents.push(decodeQueueMessage(executorEventCodec, message.value));
    },
  });
  controller = await startController(controllerEnv(), { startupWaitMs: WAIT_MS, pollMs: 100 });
}, 120_000);

afterEach(async () => {
  for (const worker of workers.splice(0)) {
    worker.cancel();
    await worker.closed();
  }
});

afterAll(async () => {
  const code = await tearDownControllerSpec(
    {
      controller,
      queue,
      topics: [workerJobsTopic(queueId), QueueTopics.executor, QueueTopics.broadcast],
      repositories,
      database,
    },
    30_000,
  );
  expect(code).toBe(0);
}, 60_000);

describe('controller restart: kills and lost jobs are not forgotten', () => {
  it('never sends the job of a task run killed before the controller restarted, and reports it KILLED', async () => {
    const killed = `rs-${run}-killed`;
    const live = `rs-${run}-live`;
    // No worker serves the queue: both jobs wait on the topic, as with fallback WAIT.
    await submit(killed);
    await submit(live);
    await kill(killed, 'execution killed by alice');
    await eventually('the first controller to read the kill', () =>
      logLines('"kill remembered: no worker here holds the job"').some((line) => line['taskRunId'] === killed) ? true : undefined,
    );

    // The controller restarts (a rolling upgrade): the new process never read that broadcast.
    expect(await stopController(started(), 30_000)).toBe(0);
    controller = await startController(controllerEnv(), { startupWaitMs: WAIT_MS, pollMs: 100 });
    expect(logLines('"kill remembered"')).toEqual([]);

    const worker = connectWorker(2);
    await worker.welcome();
    await eventually('the live job on the worker', () => (jobIds(worker).includes(live) ? true : undefined));
    const [result] = await eventually('the killed task run to be reported', () => {
      const results = eventsOf('task-run.result', killed);
      return results.length > 0 ? results : undefined;
    });
    await pause(SETTLE_MS);

    expect(jobIds(worker)).toEqual([live]);
    expect(result.payload).toMatchObject({ state: 'KILLED', attempt: 1, errorMessage: 'killed before any worker started it' });
    expect(eventsOf('task-run.result', killed)).toHaveLength(1);
    // It took no running-job row, so nothing is left for a lost report either.
    expect(await repositories.runningJobs.get(killed, 1)).toBeNull();
    expect(await repositories.runningJobs.get(live, 1)).not.toBeNull();
  }, 120_000);

  it('reports, while it runs, a lost job of its own whose report did not go out, once, after the adoption grace', async () => {
    const [listening] = logLines('"controller gRPC listening"');
    const controllerId = String(listening['controllerId']);
    // A worker's stream ended and publishing its job's lost report failed: the row was put back under this controller.
    const lost = `rs-${run}-lost`;
    const insertedAt = Date.now();
    await repositories.runningJobs.insert({
      taskRunId: lost,
      attempt: 1,
      tenantId: 'main',
      executionId: `${lost}-ex`,
      workerQueueId: queueId,
      workerId: 'worker-gone',
      controllerInstanceId: controllerId,
      job: { correlationId: `corr-${lost}` },
      dispatchedAt: new Date(),
    });
    // A job a connected worker holds is never reported lost by the same pass.
    const worker = connectWorker(1);
    await worker.welcome();
    const held = `rs-${run}-held`;
    await submit(held);
    await eventually('the held job on the worker', () => (jobIds(worker).includes(held) ? true : undefined));

    // Not within the quiet time (beyond the adoption grace): the worker could still reconnect and take the job back.
    await pause(Math.max(0, insertedAt + QUIET_MS - 500 - Date.now()));
    expect(eventsOf('task-run.worker-lost', lost)).toEqual([]);
    expect(await repositories.runningJobs.get(lost, 1)).not.toBeNull();

    const [report] = await eventually('the lost job to be reported', () => {
      const reports = eventsOf('task-run.worker-lost', lost);
      return reports.length > 0 ? reports : undefined;
    });
    expect(Date.now() - insertedAt).toBeGreaterThanOrEqual(QUIET_MS);
    expect(report.payload).toMatchObject({
      tenantId: 'main',
      executionId: `${lost}-ex`,
      taskRunId: lost,
      attempt: 1,
      workerId: 'worker-gone',
    });
    expect(report.payload.reason).toMatch(/^worker worker-gone lost: /);
    expect(report.correlationId).toBe(`corr-${lost}`);
    expect(await repositories.runningJobs.get(lost, 1)).toBeNull();

    await pause(SETTLE_MS); // five more reconciliation passes
    expect(eventsOf('task-run.worker-lost', lost)).toHaveLength(1);
    expect(eventsOf('task-run.worker-lost', held)).toEqual([]);
    expect(jobIds(worker)).toEqual([held]);
    expect(await repositories.runningJobs.get(held, 1)).toMatchObject({ controllerInstanceId: controllerId });
    const lines = logLines('"lost job reported: no stream here held it after its stream ended"');
    expect(lines.map((line) => [line['taskRunId'], line['workerId']])).toEqual([[lost, 'worker-gone']]);
  }, 120_000);
});
