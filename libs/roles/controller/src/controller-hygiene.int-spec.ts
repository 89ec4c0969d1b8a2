import { randomBytes } from 'node:crypto';
import {
  broadcastCodec,
  decodeQueueMessage,
  encodeQueueMessage,
  executorEventCodec,
  jobMessageId,
  QueueTopics,
  workerJobCodec,
  workerJobsTopic,
  type ExecutorEvent,
} from '@lanner/frames';
import { createKafkaQueue, parseKafkaBrokers, type QueuePort } from '@lanner/queue';
import { openRepositories, type Repositories } from '@lanner/repository';
import { startController, tearDownControllerSpec, type ControllerProcess } from './testing/controller-process';
import { metricSample } from './testing/metrics-text';
import { FakeWorker } from './testing/fake-worker';
import { createSpecDatabase, type SpecDatabase } from './testing/spec-database';
import { workerJobRecord } from './testing/spec-jobs';
import { eventually as eventuallyWithin, pause, requiredEnv } from './testing/spec-helpers';

// The controller as its own process on the real Kafka (a namespace of this run)
// and a PostgreSQL database of its own; the spec plays the executor (it
// publishes jobs and kills, and reads what reaches `lanner.executor`) and one
// worker over real gRPC. What it checks is what users notice: a killed task
// run's job never reaches a worker and the task run ends KILLED; a job past
// its deadline ends FAILED without a worker; a worker's slot held by a job
// whose running-job row is gone frees without a restart.

const run = randomBytes(4).toString('hex');
const namespace = `hy-${run}.`;
const queueId = `hygiene-${run}`;
const WAIT_MS = 30_000;
/** How long the spec lets the controller run before checking it did NOT send something; nothing is asserted about speed. */
const SETTLE_MS = 1_000;
/** The ledger reconciliation period of the spec's controller (the default is 30 s). */
const RECONCILE_MS = 200;

const eventually = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>) =>
  eventuallyWithin(what, probe, { waitMs: WAIT_MS, pollMs: 100 });

let database: SpecDatabase | undefined;
let repositories: Repositories;
let queue: QueuePort;
let controller: ControllerProcess;
const workers: FakeWorker[] = [];
const executorEvents: ExecutorEvent[] = [];
let published = 0;

function nextTaskRunId(): string {
  published += 1;
  return `hy-${run}-${published}`;
}

async function publishJob(taskRunId: string, deadline?: string): Promise<void> {
  const record =
    deadline === undefined
      ? workerJobRecord({
          taskRunId,
          executionId: `${taskRunId}-ex`,
          workerQueueId: queueId,
          flowId: 'hygiene',
          taskId: 'step',
          message: taskRunId,
        })
      : encodeQueueMessage(workerJobCodec, {
          schemaVersion: 1,
          messageId: jobMessageId(taskRunId, 1),
          type: 'worker.job',
          occurredAt: new Date().toISOString(),
          payload: {
            tenantId: 'main',
            executionId: `${taskRunId}-ex`,
            taskRunId,
            attempt: 1,
            workerQueueId: queueId,
            namespace: 'company.team',
            flowId: 'hygiene',
            taskId: 'step',
            taskType: 'io.kestra.plugin.core.log.Log',
            taskDefinition: { id: 'step', type: 'io.kestra.plugin.core.log.Log', message: taskRunId },
            timeoutMs: 1_000,
            deadline,
          },
        });
  await queue.publish(workerJobsTopic(queueId), [record]);
}

async function publishKill(taskRunId: string, reason: string): Promise<void> {
  await queue.publish(QueueTopics.broadcast, [
    encodeQueueMessage(broadcastCodec, {
      schemaVersion: 1,
      messageId: `kill-${taskRunId}`,
      type: 'broadcast.kill',
      occurredAt: new Date().toISOString(),
      payload: { tenantId: 'main', executionId: `${taskRunId}-ex`, taskRunId, attempt: 1, reason },
    }),
  ]);
}

function connectWorker(slots: number, credit: number): FakeWorker {
  const worker = new FakeWorker(controller.grpcPort, { heartbeatMs: 2_000, wait: { waitMs: WAIT_MS, pollMs: 100 } });
  workers.push(worker);
  worker.sendHello({ workerName: `hygiene-worker-${run}`, slots });
  worker.credit(credit);
  return worker;
}

const jobIds = (worker: FakeWorker) => worker.jobs().map((job) => job.taskRunId);

function resultOf(taskRunId: string): Extract<ExecutorEvent, { type: 'task-run.result' }> | undefined {
  const event = executorEvents.find(
    (candidate) => candidate.type === 'task-run.result' && candidate.payload.taskRunId === taskRunId,
  );
  return event?.type === 'task-run.result' ? event : undefined;
}

/** One sample of the controller's Prometheus text, e.g. `lanner_controller_jobs_waiting_for_slot{...worker_queue="x"...}`. */
async function metric(name: string, labels: Record<string, string>): Promise<number | undefined> {
  return metricSample(await (await fetch(`http://127.0.0.1:${controller.httpPort}/metrics`)).text(), name, labels);
}

function logLines(text: string): Record<string, unknown>[] {
  return controller
    .output()
    .split('\n')
    .filter((line) => line.includes(text))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

beforeAll(async () => {
  database = await createSpecDatabase(`lanner_hy_spec_${run}`);
  repositories = await openRepositories(database.url);
  await repositories.workerGroups.seedReserved();
  await repositories.workerQueues.put({ id: queueId, tags: [queueId] });
  await repositories.workerGroups.putSubscription('default', { workerQueueId: queueId, mode: 'STRICT' });
  queue = createKafkaQueue({
    brokers: parseKafkaBrokers(requiredEnv('KAFKA_BROKERS')),
    clientId: `hygiene-spec-${run}`,
    namespace,
  });
  await queue.createTopics(
    [workerJobsTopic(queueId), QueueTopics.executor, QueueTopics.broadcast].map((topic) => ({ topic, partitions: 3 })),
  );
  await queue.subscribe({
    groupId: `hygiene-spec-executor-${run}`,
    topics: [QueueTopics.executor],
    fromBeginning: true,
    handler: async (message) => {
      executorEvents.push(decodeQueueMessage(executorEventCodec, message.value));
    },
  });
  controller = await startController(
    {
      DATABASE_URL: database.url,
      KAFKA_BROKERS: requiredEnv('KAFKA_BROKERS'),
      LANNER_KAFKA_NAMESPACE: namespace,
      LANNER_ALLOW_ANONYMOUS_WORKERS: 'true',
      LANNER_JWT_SIGNING_KEY: 'hygiene-spec-signing-key-0123456789abcdef',
      LANNER_LEDGER_RECONCILE_INTERVAL_MS: String(RECONCILE_MS),
    },
    { startupWaitMs: WAIT_MS, pollMs: 100 },
  );
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

describe('controller hygiene: killed jobs, deadlines and leaked slots', () => {
  it('never sends the job of a task run killed while it waited on its topic, nor one past its deadline, and reports how each ended', async () => {
    const killed = nextTaskRunId();
    const expired = nextTaskRunId();
    const live = nextTaskRunId();
    // No worker serves the queue yet: the jobs wait on the topic, as with fallback WAIT.
    await publishJob(killed);
    await publishJob(expired, new Date(Date.now() - 60_000).toISOString());
    await publishJob(live);
    await publishKill(killed, 'execution killed by alice');
    await eventually('the controller to read the kill', () =>
      logLines('"kill remembered: no worker here holds the job"').some((line) => line['taskRunId'] === killed) ? true : undefined,
    );

    const worker = connectWorker(3, 3);
    await worker.welcome();
    await eventually('the live job on the worker', () => (jobIds(worker).includes(live) ? true : undefined));
    const killedResult = await eventually('the killed task run to be reported', () => resultOf(killed));
    const expiredResult = await eventually('the expired task run to be reported', () => resultOf(expired));
    await pause(SETTLE_MS);

    expect(jobIds(worker)).toEqual([live]);
    expect(killedResult.payload).toMatchObject({
      state: 'KILLED',
      errorMessage: 'killed before any worker started it: execution killed by alice',
      attempt: 1,
    });
    // Flagged, so the executor words it as its own timeout whether its timer or this report comes first.
    expect(expiredResult.payload).toMatchObject({ state: 'FAILED', attempt: 1, deadlinePassed: true });
    expect(killedResult.payload.deadlinePassed).toBeUndefined();
    expect(expiredResult.payload.errorMessage).toMatch(/^the job reached its deadline \(.+\) before a worker could start it$/);
    // Neither took a running-job row, so nothing is left for the liveness coordinator to re-queue.
    expect(await repositories.runningJobs.get(killed, 1)).toBeNull();
    expect(await repositories.runningJobs.get(expired, 1)).toBeNull();
    expect(await repositories.runningJobs.get(live, 1)).not.toBeNull();
  });

  it('tells the worker to kill a job whose kill was read while the job waited here for the worker', async () => {
    // Two slots but one credit: the second job is taken from its topic and waits here for the worker's credit.
    const worker = connectWorker(2, 1);
    await worker.welcome();
    const first = nextTaskRunId();
    await publishJob(first);
    await eventually('the first job on the worker', () => (jobIds(worker).includes(first) ? true : undefined));
    const second = nextTaskRunId();
    await publishJob(second);
    await eventually('the second job waiting at the controller', async () =>
      (await metric('lanner_controller_jobs_waiting_for_slot', { worker_queue: queueId })) === 1 ? true : undefined,
    );
    await publishKill(second, 'execution killed by bob');
    await eventually('the controller to read the kill', () =>
      logLines('"kill remembered: no worker here holds the job"').some((line) => line['taskRunId'] === second) ? true : undefined,
    );

    // The worker grants a credit: the job, already taken, is sent; then its worker is told to kill it.
    worker.credit(1);
    const kill = await eventually('a kill of the second job', () =>
      worker.frames
        .flatMap((frame) => (frame.frame?.$case === 'kill' ? [frame.frame.value] : []))
        .find((value) => value.taskRunId === second),
    );
    expect(kill).toEqual({ taskRunId: second, attempt: 1, reason: 'execution killed by bob' });
    expect(jobIds(worker)).toEqual([first, second]);
    await pause(SETTLE_MS);
    // Told once, and only about that job.
    expect(worker.frames.filter((frame) => frame.frame?.$case === 'kill')).toHaveLength(1);
  });

  it('frees the slot of a job whose running-job row is gone, so the next job reaches a 1-slot worker still running the first', async () => {
    const worker = connectWorker(1, 2);
    await worker.welcome();
    const first = nextTaskRunId();
    await publishJob(first);
    await eventually('the first job on the worker', () => (jobIds(worker).includes(first) ? true : undefined));
    worker.send({ frame: { $case: 'jobStarted', value: { taskRunId: first, attempt: 1, startedAt: new Date() } } });

    // The worker has credit, but its only ledger slot is held: the second job waits.
    const second = nextTaskRunId();
    await publishJob(second);
    await pause(SETTLE_MS); // five reconciliation passes
    expect(jobIds(worker)).toEqual([first]);

    // The first job's row goes, as when its result was recorded through another controller or it was put back on its queue.
    expect(await repositories.runningJobs.remove(first, 1)).toBe(true);
    await eventually('the second job on the worker', () => (jobIds(worker).includes(second) ? true : undefined));
    expect(jobIds(worker)).toEqual([first, second]);
    const warnings = logLines('"held job has no running-job row any more: its slot is freed"');
    expect(warnings.map((line) => [line['taskRunId'], line['attempt']])).toEqual([[first, 1]]);
    expect(warnings[0]['workerId']).toEqual(expect.any(String));
    // Never the job's payload in the log line.
    expect(JSON.stringify(warnings[0])).not.toContain('io.kestra.plugin.core.log.Log');
  });
});
