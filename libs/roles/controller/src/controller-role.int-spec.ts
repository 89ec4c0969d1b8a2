import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import {
  decodeQueueMessage,
  encodeQueueMessage,
  ErrorCode,
  executorEventCodec,
  JobState,
  LogLevel,
  logBatchCodec,
  MAX_FRAME_BYTES,
  millisFromDuration,
  PROTOCOL_VERSION,
  QueueTopics,
  SubscriptionMode,
  workerJobsTopic,
  broadcastCodec,
  type ExecutorEvent,
  type LogBatchMessage,
} from '@lanner/frames';
import { createKafkaQueue, namespacedQueue, parseKafkaBrokers, type QueuePort } from '@lanner/queue';
import { openRepositories, type Repositories } from '@lanner/repository';
import { Client } from 'pg';
import { startController as startSharedController, stopController, type ControllerProcess } from './testing/controller-process';
import { FakeWorker } from './testing/fake-worker';
import { createSpecDatabase, type SpecDatabase } from './testing/spec-database';
import { jobResultFrame, workerJobRecord } from './testing/spec-jobs';
import { eventually as eventuallyWithin, pause, requiredEnv } from './testing/spec-helpers';

// The controller runs as users run it (`node bin/lanner.js server controller`),
// against the real Kafka and a PostgreSQL database of this spec's own. The spec
// plays the worker (a grpc-js client on the generated definitions) and the
// executor (it publishes jobs and reads lanner.executor).
//
// Isolation from other suites sharing the broker: the controllers and the spec
// use a Kafka namespace of this run (LANNER_KAFKA_NAMESPACE), and the spec's
// database subscribes the `default` group to a queue of this run only.

const run = randomBytes(4).toString('hex');
const queueId = `ctl-spec-${run}`;
/** Every topic and consumer group of this spec's controllers and of the spec itself lives under it. */
const kafkaNamespace = `ctl-spec-${run}.`;
const executionPrefix = `ctl-spec-${run}-ex`;
const WAIT_MS = 30_000;
/** A loaded machine (other suites share it) can take a while to start a Node process and join a Kafka group. */
const STARTUP_WAIT_MS = 90_000;
/**
 * How long the spec lets the controller run before checking that it did NOT
 * send something. A controller that wrongly sends would do so well within it;
 * nothing is asserted about how long anything takes.
 */
const SETTLE_MS = 1_000;

const eventually = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>, waitMs = WAIT_MS) =>
  eventuallyWithin(what, probe, { waitMs, pollMs: 100 });

// --- the controller process --------------------------------------------------

const startController = (env: NodeJS.ProcessEnv) =>
  startSharedController(
    {
      LANNER_JWT_SIGNING_KEY: 'controller-spec-jwt-signing-key-0123456789abcdef',
      // A dropped stream's jobs are reported lost after 1 s instead of the default 10 s.
      LANNER_WORKER_ADOPTION_GRACE_MS: '1000',
      // Not the default 3 s, so the Welcome shows that the interval comes from the variable.
      LANNER_WORKER_HEARTBEAT_INTERVAL_MS: '2500',
      ...env,
    },
    { startupWaitMs: STARTUP_WAIT_MS, pollMs: 100 },
  );

// --- the spec's worker ----------------------------------------------------------

class SpecWorker extends FakeWorker {
  constructor(port: number, metadata = new grpc.Metadata()) {
    super(port, { metadata, heartbeatMs: 2_000, wait: { waitMs: WAIT_MS, pollMs: 100 } });
  }

  hello(version = { ...PROTOCOL_VERSION }): void {
    this.sendHello({ protocolVersion: version, workerName: `spec-worker-${run}`, slots: 3 });
  }

  /** Half-closes like a worker that stops; `cancel` drops the stream like one that dies. */
  close(how: 'end' | 'cancel' = 'end'): void {
    if (how === 'cancel') this.cancel();
    else this.end();
  }
}

// --- fixture -----------------------------------------------------------------------

let database: SpecDatabase | undefined;
let databaseUrl: string;
let repositories: Repositories;
let queue: QueuePort;
let controller: ControllerProcess;
let strictController: ControllerProcess;
const executorEvents: ExecutorEvent[] = [];
const logBatches: LogBatchMessage[] = [];
const workers: SpecWorker[] = [];
let jobCount = 0;

function connectWorker(port = controller.grpcPort, metadata?: grpc.Metadata): SpecWorker {
  const worker = new SpecWorker(port, metadata);
  workers.push(worker);
  return worker;
}

async function publishJob(): Promise<{ taskRunId: string; executionId: string }> {
  jobCount += 1;
  const executionId = `${executionPrefix}-${jobCount}`;
  const taskRunId = `ctl-spec-${run}-tr-${jobCount}`;
  const record = workerJobRecord({
    taskRunId,
    executionId,
    workerQueueId: queueId,
    flowId: 'controller-spec',
    taskId: 'hello',
    message: `job ${jobCount}`,
    correlationId: `corr-${jobCount}`,
    timeoutMs: 60_000,
  });
  await queue.publish(workerJobsTopic(queueId), [record]);
  return { taskRunId, executionId };
}

function eventFor(type: ExecutorEvent['type'], taskRunId: string): Promise<ExecutorEvent> {
  return eventually(`${type} of ${taskRunId}`, () =>
    executorEvents.find((event) => event.type === type && 'taskRunId' in event.payload && event.payload.taskRunId === taskRunId),
  );
}

beforeAll(async () => {
  const brokers = requiredEnv('KAFKA_BROKERS');

  database = await createSpecDatabase(`lanner_ctl_spec_${run}`);
  databaseUrl = database.url;
  repositories = await openRepositories(databaseUrl);
  await repositories.workerGroups.seedReserved();
  await repositories.workerQueues.put({ id: queueId, tags: [queueId] });
  await repositories.workerGroups.putSubscription('default', { workerQueueId: queueId });
  // The repository keeps default->default on purpose; this spec's database alone drops it (see the top of the file).
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  await db.query(`DELETE FROM worker_group_subscriptions WHERE worker_group_id = 'default' AND worker_queue_id = 'default'`);
  await db.end();

  queue = namespacedQueue(
    createKafkaQueue({
      brokers: parseKafkaBrokers(brokers),
      clientId: `controller-spec-${run}`,
      consumer: { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 5_000, maxWaitTimeMs: 250 },
    }),
    kafkaNamespace,
  );
  await queue.createTopics(
    [QueueTopics.executor, QueueTopics.logs, QueueTopics.broadcast, workerJobsTopic(queueId)].map((topic) => ({
      topic,
      partitions: 3,
    })),
  );
  await queue.subscribe({
    groupId: `controller-spec-executor-${run}`,
    topics: [QueueTopics.executor],
    handler: async (message) => {
      const event = decodeQueueMessage(executorEventCodec, message.value);
      if (event.payload.executionId.startsWith(executionPrefix)) executorEvents.push(event);
    },
  });
  await queue.subscribe({
    groupId: `controller-spec-logs-${run}`,
    topics: [QueueTopics.logs],
    handler: async (message) => {
      const batch = decodeQueueMessage(logBatchCodec, message.value);
      if (batch.payload.executionId.startsWith(executionPrefix)) logBatches.push(batch);
    },
  });

  const services = { DATABASE_URL: databaseUrl, KAFKA_BROKERS: brokers, LANNER_KAFKA_NAMESPACE: kafkaNamespace };
  [controller, strictController] = await Promise.all([
    startController({ ...services, LANNER_ALLOW_ANONYMOUS_WORKERS: 'true' }),
    startController({ ...services, LANNER_ALLOW_ANONYMOUS_WORKERS: 'false', LANNER_HEAP_GROWING_PERCENT: '0' }),
  ]);
}, 200_000);

afterEach(async () => {
  for (const worker of workers.splice(0)) {
    worker.close('cancel');
    await worker.closed();
  }
});

afterAll(async () => {
  const exits = await Promise.all(
    [controller, strictController]
      .filter((process_) => process_ !== undefined)
      // SIGKILL only if it does not stop by itself.
      .map((process_) => stopController(process_, 20_000)),
  );
  await queue
    ?.deleteTopics([workerJobsTopic(queueId), QueueTopics.executor, QueueTopics.logs, QueueTopics.broadcast])
    .catch(() => undefined);
  await queue?.close();
  await repositories?.close();
  await database?.drop();
  expect(exits).toEqual(exits.map(() => 0));
}, 60_000);

// --- scenarios ------------------------------------------------------------------

describe('controller: the process', () => {
  it("sets V8's heap growing factor from LANNER_HEAP_GROWING_PERCENT (200 unless set) and says so at start", () => {
    const announced = (process_: ControllerProcess) =>
      process_
        .output()
        .split('\n')
        .filter((line) => line.includes('"V8 heap growing factor set"'))
        .map((line) => (JSON.parse(line) as { heapGrowingPercent: unknown }).heapGrowingPercent);
    expect(announced(controller)).toEqual([200]);
    expect(announced(strictController)).toEqual([0]);
  });
});

describe('controller: the worker stream', () => {
  it('welcomes a worker that says hello with its id, the default group, the queues that group serves and the heartbeat interval', async () => {
    const worker = connectWorker();
    worker.hello();

    const welcome = await worker.welcome();
    expect(welcome.workerId).toMatch(/^worker-/);
    expect(welcome.workerGroupId).toBe('default');
    expect(welcome.subscriptions).toEqual([{ queueId, reservedPercent: 0, mode: SubscriptionMode.STRICT }]);
    expect(welcome.protocolVersion).toEqual(PROTOCOL_VERSION);
    expect(welcome.maxFrameBytes).toBe(MAX_FRAME_BYTES);
    expect(welcome.controllerId).toMatch(/^controller-/);
    expect(millisFromDuration(welcome.heartbeatInterval)).toBe(2_500);
  });

  it('refuses a worker speaking another protocol major, saying why', async () => {
    const worker = connectWorker();
    worker.hello({ major: PROTOCOL_VERSION.major + 1, minor: 0 });

    const status = await worker.closed();
    expect(status.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(status.details).toContain('incompatible');
    const error = worker.frames.find((frame) => frame.frame?.$case === 'error')?.frame;
    expect(error).toEqual({
      $case: 'error',
      value: expect.objectContaining({ code: ErrorCode.UNSUPPORTED_PROTOCOL_VERSION, fatal: true }),
    });
    expect(worker.frames.some((frame) => frame.frame?.$case === 'welcome')).toBe(false);
  });

  it('refuses an anonymous worker when anonymous workers are not allowed', async () => {
    const worker = connectWorker(strictController.grpcPort);
    worker.hello();

    const status = await worker.closed();
    expect(status.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(status.details).toContain('anonymous workers are not allowed');
    expect(worker.frames.some((frame) => frame.frame?.$case === 'welcome')).toBe(false);
  });
});

describe('controller: dispatch', () => {
  it('sends a job only against credit, never beyond it, and records each in running_jobs before the worker sees it', async () => {
    const worker = connectWorker();
    worker.hello();
    const welcome = await worker.welcome();
    const published = [await publishJob(), await publishJob(), await publishJob()];

    await pause(SETTLE_MS);
    expect(worker.jobs()).toEqual([]);

    worker.credit(1);
    const [first] = await eventually('the first job', () => (worker.jobs().length > 0 ? worker.jobs() : undefined));
    // Read as soon as the frame arrived: the row was written before the frame was sent.
    const row = await repositories.runningJobs.get(first.taskRunId, first.attempt);
    expect(row).toEqual(
      expect.objectContaining({ workerId: welcome.workerId, controllerInstanceId: welcome.controllerId, workerQueueId: queueId }),
    );
    // The jobs are recorded under the controller's service instance: the liveness coordinator re-queues them if it dies.
    const instance = await repositories.serviceInstances.get(welcome.controllerId);
    expect(instance).toEqual(expect.objectContaining({ role: 'CONTROLLER', state: 'RUNNING' }));
    await pause(SETTLE_MS);
    expect(worker.jobs()).toHaveLength(1);

    worker.credit(2);
    const all = await eventually('three jobs', () => (worker.jobs().length >= 3 ? worker.jobs() : undefined));
    await pause(SETTLE_MS);
    expect(worker.jobs()).toHaveLength(3);
    expect(all.map((job) => job.taskRunId).sort()).toEqual(published.map((job) => job.taskRunId).sort());
    const job = all.find((candidate) => candidate.taskRunId === published[0].taskRunId);
    expect(job).toEqual(
      expect.objectContaining({
        attempt: 1,
        executionId: published[0].executionId,
        queueId,
        taskType: 'io.kestra.plugin.core.log.Log',
        correlationId: 'corr-1',
        tenantId: 'main',
        namespace: 'company.team',
        flowId: 'controller-spec',
        taskId: 'hello',
      }),
    );
    expect(JSON.parse(job?.taskDefinitionJson ?? '{}')).toEqual({
      id: 'hello',
      type: 'io.kestra.plugin.core.log.Log',
      message: 'job 1',
    });
  });

  it('sends no new job to a draining worker; the job waits for a worker that takes work', async () => {
    const draining = connectWorker();
    draining.hello();
    await draining.welcome();
    draining.credit(2);
    draining.send({ frame: { $case: 'draining', value: { reason: 'SIGTERM', gracePeriod: undefined } } });
    const { taskRunId } = await publishJob();

    await pause(SETTLE_MS);
    expect(draining.jobs()).toEqual([]);

    const fresh = connectWorker();
    fresh.hello();
    await fresh.welcome();
    fresh.credit(1);
    await eventually('the job on the other worker', () => fresh.jobs().find((job) => job.taskRunId === taskRunId));
    expect(draining.jobs()).toEqual([]);
  });

  it("relays a job's start, log lines and result to the queue, then forgets the running job", async () => {
    const worker = connectWorker();
    worker.hello();
    const welcome = await worker.welcome();
    worker.credit(1);
    const { taskRunId, executionId } = await publishJob();
    await eventually('the job', () => worker.jobs().find((job) => job.taskRunId === taskRunId));

    const startedAt = new Date();
    worker.send({ frame: { $case: 'jobStarted', value: { taskRunId, attempt: 1, startedAt } } });
    const started = await eventFor('task-run.started', taskRunId);
    expect(started.messageId).toBe(`${taskRunId}:1`);
    expect(started.correlationId).toBe(`corr-${jobCount}`);
    expect(started.payload).toEqual({
      tenantId: 'main',
      executionId,
      taskRunId,
      attempt: 1,
      workerQueueId: queueId,
      workerId: welcome.workerId,
      startedAt: startedAt.toISOString(),
    });

    const loggedAt = new Date();
    worker.send({
      frame: {
        $case: 'logBatch',
        value: { entries: [{ taskRunId, attempt: 1, level: LogLevel.INFO, timestamp: loggedAt, message: 'Hello, Lanner' }] },
      },
    });
    const batch = await eventually('the log batch', () =>
      logBatches.find((candidate) => candidate.payload.executionId === executionId),
    );
    expect(batch.payload).toEqual({
      tenantId: 'main',
      executionId,
      entries: [{ taskRunId, attempt: 1, level: 'INFO', timestamp: loggedAt.toISOString(), message: 'Hello, Lanner' }],
    });

    const endedAt = new Date();
    worker.send(jobResultFrame({ taskRunId, attempt: 1, credit: 0, startedAt, endedAt, outputsJson: '{"answer":42}' }));
    const result = await eventFor('task-run.result', taskRunId);
    expect(result.messageId).toBe(`${taskRunId}:1`);
    expect(result.payload).toEqual({
      tenantId: 'main',
      executionId,
      taskRunId,
      attempt: 1,
      workerQueueId: queueId,
      workerId: welcome.workerId,
      state: 'SUCCESS',
      outputs: { answer: 42 },
      cacheHit: false,
      startedAt: startedAt.toISOString(),
      endedAt: endedAt.toISOString(),
    });
    await eventually('the running job to be removed', async () =>
      (await repositories.runningJobs.get(taskRunId, 1)) === null ? true : undefined,
    );
  });

  it('takes the credit a result carries: a fast job is one Job and one JobResult frame, one executor event, and the next job follows', async () => {
    const worker = connectWorker();
    worker.hello();
    await worker.welcome();
    const first = await publishJob();
    const second = await publishJob();
    worker.credit(1);
    await eventually('the first job', () => worker.jobs().find((job) => job.taskRunId === first.taskRunId));
    await pause(SETTLE_MS);
    expect(worker.jobs()).toHaveLength(1);

    const startedAt = new Date();
    worker.send(jobResultFrame({ taskRunId: first.taskRunId, attempt: 1, credit: 1, startedAt, endedAt: new Date() }));
    const result = await eventFor('task-run.result', first.taskRunId);
    expect(result.payload).toEqual(expect.objectContaining({ state: 'SUCCESS', startedAt: startedAt.toISOString() }));
    // No Credit frame was sent: the result's credit alone brings the next job.
    await eventually('the second job', () => worker.jobs().find((job) => job.taskRunId === second.taskRunId));
    await pause(SETTLE_MS);
    expect(worker.jobs()).toHaveLength(2);
    const aboutFirst = executorEvents.filter(
      (event) => 'taskRunId' in event.payload && event.payload.taskRunId === first.taskRunId,
    );
    expect(aboutFirst.map((event) => event.type)).toEqual(['task-run.result']);
    await eventually('the running job to be removed', async () =>
      (await repositories.runningJobs.get(first.taskRunId, 1)) === null ? true : undefined,
    );
  });

  it('relays a result sent just before the worker closes its stream, instead of reporting the job lost', async () => {
    const worker = connectWorker();
    worker.hello();
    await worker.welcome();
    worker.credit(1);
    const { taskRunId } = await publishJob();
    await eventually('the job', () => worker.jobs().find((job) => job.taskRunId === taskRunId));

    worker.send(
      jobResultFrame({
        taskRunId,
        attempt: 1,
        credit: 0,
        startedAt: undefined,
        endedAt: new Date(),
        state: JobState.FAILED,
        errorMessage: 'exit code 3',
      }),
    );
    worker.close('end');

    const result = await eventFor('task-run.result', taskRunId);
    expect(result.payload).toEqual(expect.objectContaining({ state: 'FAILED', errorMessage: 'exit code 3' }));
    await eventually('the running job to be removed', async () =>
      (await repositories.runningJobs.get(taskRunId, 1)) === null ? true : undefined,
    );
    await pause(SETTLE_MS);
    expect(
      executorEvents.filter((event) => event.type === 'task-run.worker-lost' && event.payload.taskRunId === taskRunId),
    ).toEqual([]);
  });

  it('passes a broadcast kill to the worker holding the job', async () => {
    const worker = connectWorker();
    worker.hello();
    await worker.welcome();
    worker.credit(1);
    const { taskRunId, executionId } = await publishJob();
    await eventually('the job', () => worker.jobs().find((job) => job.taskRunId === taskRunId));

    await queue.publish(QueueTopics.broadcast, [
      encodeQueueMessage(broadcastCodec, {
        schemaVersion: 1,
        messageId: `kill-${taskRunId}`,
        type: 'broadcast.kill',
        occurredAt: new Date().toISOString(),
        payload: { tenantId: 'main', executionId, taskRunId, attempt: 1, reason: 'execution killed by the spec' },
      }),
    ]);

    const kill = await eventually('the kill frame', () => {
      const frame = worker.frames.find((candidate) => candidate.frame?.$case === 'kill')?.frame;
      return frame?.$case === 'kill' ? frame.value : undefined;
    });
    expect(kill).toEqual({ taskRunId, attempt: 1, reason: 'execution killed by the spec' });
  });

  it('reports every job a worker held as lost when its stream drops, and removes the running jobs', async () => {
    const worker = connectWorker();
    worker.hello();
    const welcome = await worker.welcome();
    worker.credit(1);
    const { taskRunId, executionId } = await publishJob();
    await eventually('the job', () => worker.jobs().find((job) => job.taskRunId === taskRunId));

    worker.close('cancel');
    const lost = await eventFor('task-run.worker-lost', taskRunId);
    expect(lost.messageId).toBe(`${taskRunId}:1`);
    expect(lost.payload).toEqual(
      expect.objectContaining({ tenantId: 'main', executionId, taskRunId, attempt: 1, workerId: welcome.workerId }),
    );
    await eventually('the running job to be removed', async () =>
      (await repositories.runningJobs.get(taskRunId, 1)) === null ? true : undefined,
    );
  });
});
