import { randomBytes } from 'node:crypto';
import { resubmittedJobsTopic, workerJobsTopic, type Job, type JobRef } from '@lanner/frames';
import { createKafkaQueue, parseKafkaBrokers, type QueuePort } from '@lanner/queue';
import { openRepositories, type Repositories } from '@lanner/repository';
import { startController, tearDownControllerSpec, type ControllerProcess } from './testing/controller-process';
import { metricSample } from './testing/metrics-text';
import { FakeWorker } from './testing/fake-worker';
import { createSpecDatabase, type SpecDatabase } from './testing/spec-database';
import { jobResultFrame, workerJobRecord } from './testing/spec-jobs';
import { eventually as eventuallyWithin, pause, requiredEnv } from './testing/spec-helpers';

// A job whose worker was lost comes back as a new attempt on its queue's
// resubmitted-jobs topic; the controller (its own process, on the real Kafka and
// PostgreSQL) sends it to the next free slot, ahead of the queue's backlog of new
// work, which waits in the queue's own topic.

const run = randomBytes(4).toString('hex');
const namespace = `rj-${run}.`;
const queueId = `rj-${run}`;
const BACKLOG = 20;
const WAIT_MS = 30_000;
/** Lets the controller fetch what it will fetch of the backlog before the spec counts what waits there. */
const SETTLE_MS = 1_000;

const eventually = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>) =>
  eventuallyWithin(what, probe, { waitMs: WAIT_MS, pollMs: 100 });

class SpecWorker extends FakeWorker {
  private readonly done = new Set<string>();

  constructor(port: number) {
    super(port, { heartbeatMs: 2_000, wait: { waitMs: WAIT_MS, pollMs: 100 } });
  }

  protected override runningJobs(): JobRef[] {
    return this.jobs()
      .filter((job) => !this.done.has(job.taskRunId))
      .map((job) => ({ taskRunId: job.taskRunId, attempt: job.attempt }));
  }

  complete(job: Job): void {
    this.done.add(job.taskRunId);
    const now = new Date();
    this.send({ frame: { $case: 'jobStarted', value: { taskRunId: job.taskRunId, attempt: job.attempt, startedAt: now } } });
    // Its slot comes back in a Credit frame of its own, as a 1.1 worker sends it.
    this.send(jobResultFrame({ taskRunId: job.taskRunId, attempt: job.attempt, credit: 0, startedAt: now, endedAt: now }));
    this.credit(1);
  }
}

let database: SpecDatabase | undefined;
let repositories: Repositories;
let queue: QueuePort;
let controller: ControllerProcess;
let worker: SpecWorker | undefined;

const record = (taskRunId: string) =>
  workerJobRecord({
    taskRunId,
    executionId: `${taskRunId}-execution`,
    workerQueueId: queueId,
    flowId: 'resubmitted-first',
    taskId: 'step',
    message: taskRunId,
  });

async function waitingAtController(): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${controller.httpPort}/metrics`)).text();
  return metricSample(text, 'lanner_controller_jobs_waiting_for_slot', { worker_queue: queueId }) ?? 0;
}

beforeAll(async () => {
  database = await createSpecDatabase(`lanner_rj_spec_${run}`);
  repositories = await openRepositories(database.url);
  await repositories.workerGroups.seedReserved();
  await repositories.workerQueues.put({ id: queueId, tags: [queueId] });
  await repositories.workerGroups.putSubscription('default', { workerQueueId: queueId, mode: 'ELASTIC' });
  queue = createKafkaQueue({ brokers: parseKafkaBrokers(requiredEnv('KAFKA_BROKERS')), clientId: `rj-spec-${run}`, namespace });
  await queue.createTopics([workerJobsTopic(queueId), resubmittedJobsTopic(queueId)].map((topic) => ({ topic, partitions: 3 })));
  controller = await startController(
    {
      DATABASE_URL: database.url,
      KAFKA_BROKERS: requiredEnv('KAFKA_BROKERS'),
      LANNER_KAFKA_NAMESPACE: namespace,
      LANNER_ALLOW_ANONYMOUS_WORKERS: 'true',
      LANNER_JWT_SIGNING_KEY: 'resubmitted-jobs-spec-signing-key-0123456789abcdef',
    },
    { startupWaitMs: WAIT_MS, pollMs: 100 },
  );
}, 120_000);

afterAll(async () => {
  worker?.cancel();
  await worker?.closed();
  const code = await tearDownControllerSpec({
    controller,
    queue,
    topics: [workerJobsTopic(queueId), resubmittedJobsTopic(queueId)],
    repositories,
    database,
  });
  expect(code).toBe(0);
}, 60_000);

describe('controller: a re-queued job goes ahead of its queue backlog', () => {
  it('sends the resubmitted job to the next free slot, before the new work published long before it', async () => {
    worker = new SpecWorker(controller.grpcPort);
    worker.sendHello({ workerName: `rj-worker-${run}`, slots: 1 });
    await worker.welcome();
    const backlog = Array.from({ length: BACKLOG }, (_, index) => `rj-${run}-new-${index}`);
    await queue.publish(workerJobsTopic(queueId), backlog.map(record));
    worker.credit(1);
    const first = await eventually('the first job of the backlog', () => worker?.jobs()[0]);
    expect(backlog).toContain(first.taskRunId);

    // The worker's one slot is busy and new work waits; then a lost worker's job comes back.
    await pause(SETTLE_MS);
    const waitingBefore = await waitingAtController();
    const resubmitted = `rj-${run}-resubmitted`;
    await queue.publish(resubmittedJobsTopic(queueId), [record(resubmitted)]);
    await eventually('the resubmitted job waiting for a slot', async () =>
      (await waitingAtController()) === waitingBefore + 1 ? true : undefined,
    );

    worker.complete(first);
    const second = await eventually('a second job', () => worker?.jobs()[1]);
    expect(second.taskRunId).toBe(resubmitted);

    // Then the backlog again, in its order.
    worker.complete(second);
    const third = await eventually('a third job', () => worker?.jobs()[2]);
    expect(backlog).toContain(third.taskRunId);
    expect(worker.jobs().filter((job) => job.taskRunId === resubmitted)).toHaveLength(1);
  });
});
