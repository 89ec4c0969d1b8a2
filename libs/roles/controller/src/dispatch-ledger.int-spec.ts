import { randomBytes } from 'node:crypto';
import { broadcastCodec, encodeQueueMessage, QueueTopics, workerJobsTopic, type Job, type JobRef } from '@lanner/frames';
import { createKafkaQueue, parseKafkaBrokers, type QueuePort } from '@lanner/queue';
import { openRepositories, type Repositories } from '@lanner/repository';
import {
  startController as startSharedController,
  tearDownControllerSpec,
  type ControllerProcess,
} from './testing/controller-process';
import { metricSample } from './testing/metrics-text';
import { FakeWorker } from './testing/fake-worker';
import { createSpecDatabase, type SpecDatabase } from './testing/spec-database';
import { jobResultFrame, workerJobRecord } from './testing/spec-jobs';
import { eventually as eventuallyWithin, pause, requiredEnv } from './testing/spec-helpers';

// The controller runs as its own process (`node bin/lanner.js server controller`)
// on the real Kafka (a namespace of this run) and a PostgreSQL database of its
// own; the spec publishes jobs on two worker queues and plays one worker over
// real gRPC. What it checks is what an operator sees: which jobs reach the
// worker, in which order, and the controller's /metrics.
//
// The `default` group subscribes to two queues of this run:
//   urgent: 50 % reserved, ELASTIC     bulk: no reservation, ELASTIC
// A worker of 4 slots therefore has 2 slots reserved for `urgent` and a shared
// pool of 2; `bulk` may borrow `urgent`'s idle reserved slots.

const run = randomBytes(4).toString('hex');
const namespace = `dl-${run}.`;
const urgent = `urgent-${run}`;
const bulk = `bulk-${run}`;
const WAIT_MS = 30_000;
/** How long the spec lets the controller run before checking it did NOT send something; nothing is asserted about speed. */
const SETTLE_MS = 1_000;

const eventually = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>) =>
  eventuallyWithin(what, probe, { waitMs: WAIT_MS, pollMs: 100 });

// --- the controller process ----------------------------------------------------

const startController = (env: NodeJS.ProcessEnv) =>
  startSharedController(
    {
      LANNER_KAFKA_NAMESPACE: namespace,
      LANNER_ALLOW_ANONYMOUS_WORKERS: 'true',
      LANNER_JWT_SIGNING_KEY: 'dispatch-ledger-spec-signing-key-0123456789abcdef',
      ...env,
    },
    { startupWaitMs: WAIT_MS, pollMs: 100 },
  );

/** One sample of the controller's Prometheus text, e.g. `lanner_controller_worker_slots_used{...worker_queue="x"...}`. */
async function metric(name: string, labels: Record<string, string>): Promise<number | undefined> {
  return metricSample(await (await fetch(`http://127.0.0.1:${controller.httpPort}/metrics`)).text(), name, labels);
}

/** `waiting` of the queue in the capacity the controller wrote to the live worker registry for the one connected worker. */
async function registryWaiting(queueId: string): Promise<number | undefined> {
  const [row] = await repositories.connectedWorkers.listLive(new Date(Date.now() - 15_000));
  const capacity = row?.capacity as { subscriptions?: { workerQueueId: string; waiting: number }[] } | null | undefined;
  return capacity?.subscriptions?.find((subscription) => subscription.workerQueueId === queueId)?.waiting;
}

// --- the spec's worker -----------------------------------------------------------

class SpecWorker extends FakeWorker {
  private readonly done = new Set<string>();

  constructor(port: number) {
    super(port, { heartbeatMs: 2_000, wait: { waitMs: WAIT_MS, pollMs: 100 } });
  }

  hello(slots: number): void {
    this.sendHello({ workerName: `dl-worker-${run}`, slots });
  }

  /** Its heartbeats list every job it received and has not completed. */
  protected override runningJobs(): JobRef[] {
    return this.jobs()
      .filter((job) => !this.done.has(job.taskRunId))
      .map((job) => ({ taskRunId: job.taskRunId, attempt: job.attempt }));
  }

  /** The job ran: its start and result, then the slot is granted again (as a worker's pool does). */
  complete(job: Job): void {
    this.done.add(job.taskRunId);
    const now = new Date();
    this.send({ frame: { $case: 'jobStarted', value: { taskRunId: job.taskRunId, attempt: job.attempt, startedAt: now } } });
    this.send(jobResultFrame({ taskRunId: job.taskRunId, attempt: job.attempt, credit: 0, startedAt: now, endedAt: now }));
    this.credit(1);
  }

  async close(): Promise<void> {
    this.cancel();
    await this.closed();
  }
}

// --- fixture ----------------------------------------------------------------------

let database: SpecDatabase | undefined;
let databaseUrl: string;
let repositories: Repositories;
let queue: QueuePort;
let controller: ControllerProcess;
const workers: SpecWorker[] = [];
let published = 0;

async function publish(queueId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  const records = Array.from({ length: count }, () => {
    published += 1;
    const taskRunId = `dl-${run}-${queueId}-${published}`;
    ids.push(taskRunId);
    return workerJobRecord({
      taskRunId,
      executionId: `dl-${run}-ex-${published}`,
      workerQueueId: queueId,
      flowId: 'dispatch-ledger',
      taskId: 'step',
      message: taskRunId,
    });
  });
  await queue.publish(workerJobsTopic(queueId), records);
  return ids;
}

function connectWorker(): SpecWorker {
  const worker = new SpecWorker(controller.grpcPort);
  workers.push(worker);
  return worker;
}

const queueOf = (job: Job) => job.queueId;

beforeAll(async () => {
  database = await createSpecDatabase(`lanner_dl_spec_${run}`);
  databaseUrl = database.url;
  repositories = await openRepositories(databaseUrl);
  await repositories.workerGroups.seedReserved();
  await repositories.workerQueues.put({ id: urgent, tags: [urgent] });
  await repositories.workerQueues.put({ id: bulk, tags: [bulk] });
  await repositories.workerGroups.putSubscription('default', { workerQueueId: urgent, reservedPercent: 50, mode: 'ELASTIC' });
  await repositories.workerGroups.putSubscription('default', { workerQueueId: bulk, mode: 'ELASTIC' });

  queue = createKafkaQueue({
    brokers: parseKafkaBrokers(requiredEnv('KAFKA_BROKERS')),
    clientId: `dispatch-ledger-spec-${run}`,
    namespace,
  });
  await queue.createTopics([workerJobsTopic(urgent), workerJobsTopic(bulk)].map((topic) => ({ topic, partitions: 3 })));
  controller = await startController({ DATABASE_URL: databaseUrl, KAFKA_BROKERS: requiredEnv('KAFKA_BROKERS') });
}, 120_000);

afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.close();
});

afterAll(async () => {
  const code = await tearDownControllerSpec({
    controller,
    queue,
    topics: [workerJobsTopic(urgent), workerJobsTopic(bulk)],
    repositories,
    database,
  });
  expect(code).toBe(0);
}, 60_000);

// --- scenario ------------------------------------------------------------------------

describe('controller: dispatch under the worker capacity ledger', () => {
  it('serves the reserved floor of a queue first while another queue floods the worker, then shares the rest', async () => {
    const worker = connectWorker();
    worker.hello(4);
    await worker.welcome();

    // A flood of bulk jobs while the worker grants 2 credits: bulk takes the shared pool.
    const bulkJobs = await publish(bulk, 30);
    worker.credit(2);
    await eventually('two bulk jobs', () => (worker.jobs().length >= 2 ? true : undefined));

    // Urgent work arrives after the flood, while the worker has no credit left.
    const urgentJobs = await publish(urgent, 2);
    await eventually('both urgent jobs waiting for a slot at the controller', async () =>
      (await metric('lanner_controller_jobs_waiting_for_slot', { worker_queue: urgent })) === 2 ? true : undefined,
    );
    expect((await metric('lanner_controller_jobs_waiting_for_slot', { worker_queue: bulk })) ?? 0).toBeGreaterThan(0);
    // The live worker registry (read by the API's capacity endpoint) shows them too, within its full-check period.
    await eventually('the registry row to show both urgent jobs waiting', async () =>
      (await registryWaiting(urgent)) === 2 ? true : undefined,
    );

    // Two credits: bulk could borrow urgent's idle reserved slots, and its jobs waited longer, but urgent's floor comes first.
    worker.credit(2);
    await eventually('four jobs', () => (worker.jobs().length >= 4 ? true : undefined));
    await pause(SETTLE_MS);
    const jobs = worker.jobs();
    expect(jobs).toHaveLength(4);
    expect(jobs.slice(0, 2).map(queueOf)).toEqual([bulk, bulk]);
    expect(jobs.slice(2).map(queueOf)).toEqual([urgent, urgent]);
    expect(
      jobs
        .slice(2)
        .map((job) => job.taskRunId)
        .sort(),
    ).toEqual([...urgentJobs].sort());
    await eventually('the registry row to show nothing of urgent waiting', async () =>
      (await registryWaiting(urgent)) === 0 ? true : undefined,
    );
    expect(await metric('lanner_controller_worker_slots_used', { worker_queue: urgent })).toBe(2);
    expect(await metric('lanner_controller_worker_slots_used', { worker_queue: bulk })).toBe(2);
    expect(await metric('lanner_controller_worker_slots_reserved', { worker_queue: urgent })).toBe(2);

    // Every slot is taken: more credit sends nothing.
    worker.credit(3);
    await pause(SETTLE_MS);
    expect(worker.jobs()).toHaveLength(4);

    // Urgent's jobs end and it has nothing waiting: bulk borrows urgent's idle slots (ELASTIC), one per freed slot.
    for (const job of jobs.slice(2)) worker.complete(job);
    await eventually('six jobs', () => (worker.jobs().length >= 6 ? true : undefined));
    await pause(SETTLE_MS);
    expect(worker.jobs()).toHaveLength(6);
    expect(worker.jobs().slice(4).map(queueOf)).toEqual([bulk, bulk]);

    // New urgent work, below its floor while bulk holds its slots, claims the first slot that frees before bulk's backlog.
    const [late] = await publish(urgent, 1);
    await eventually('the late urgent job waiting', async () =>
      (await metric('lanner_controller_jobs_waiting_for_slot', { worker_queue: urgent })) === 1 ? true : undefined,
    );
    // Nothing else about the worker changed since its last row write: only the registry's periodic check can carry this.
    await eventually('the registry row to show the late urgent job waiting', async () =>
      (await registryWaiting(urgent)) === 1 ? true : undefined,
    );
    worker.complete(worker.jobs()[0]);
    const seventh = await eventually('a seventh job', () => worker.jobs()[6]);
    expect(seventh.taskRunId).toBe(late);
    expect(bulkJobs).toEqual(
      expect.arrayContaining(
        worker
          .jobs()
          .filter((job) => job.queueId === bulk)
          .map((job) => job.taskRunId),
      ),
    );

    // Each job the worker got was recorded in the running-job store; completed ones are removed.
    await eventually('the completed jobs to leave the running-job store', async () =>
      (await repositories.runningJobs.get(jobs[2].taskRunId, 1)) === null ? true : undefined,
    );
    expect(await repositories.runningJobs.get(seventh.taskRunId, 1)).toEqual(expect.objectContaining({ workerQueueId: urgent }));
    expect(await metric('lanner_controller_jobs_dispatched_total', { worker_queue: urgent })).toBe(3);
  });

  it('frees every slot of a worker whose stream drops, so the next worker gets the whole ledger', async () => {
    const first = connectWorker();
    first.hello(2);
    await first.welcome();
    first.credit(2);
    await eventually('the first worker busy', () => (first.jobs().length >= 2 ? true : undefined));
    await first.close();
    workers.splice(workers.indexOf(first), 1);

    const second = connectWorker();
    second.hello(4);
    await second.welcome();
    second.credit(4);
    // Bulk's backlog (and the first worker's jobs, reported lost, are not re-sent by the controller itself) fills all 4 slots.
    await eventually('four jobs on the second worker', () => (second.jobs().length >= 4 ? true : undefined));
    expect(await metric('lanner_controller_connected_workers', { worker_group: 'default' })).toBe(1);
    expect(await metric('lanner_controller_worker_slots_used', { worker_queue: bulk })).toBe(4);
  });

  it('applies a subscription change of the group live: running jobs are not cut, and the next slots follow the new layout', async () => {
    const worker = connectWorker();
    worker.hello(4);
    await worker.welcome();
    worker.credit(4);
    // urgent 50 % ELASTIC lends its 2 idle slots: bulk's backlog fills all 4.
    await eventually('four bulk jobs', () => (worker.jobs().length >= 4 ? true : undefined));
    const running = worker.jobs();
    expect(running.map(queueOf)).toEqual([bulk, bulk, bulk, bulk]);

    // The operator makes urgent 75 % STRICT (as the API does: stored, then broadcast to every controller).
    const subscriptions = [
      { workerQueueId: 'default', mode: 'STRICT' as const },
      { workerQueueId: urgent, reservedPercent: 75, mode: 'STRICT' as const },
      { workerQueueId: bulk, mode: 'ELASTIC' as const },
    ];
    for (const subscription of subscriptions.slice(1)) await repositories.workerGroups.putSubscription('default', subscription);
    await queue.publish(QueueTopics.broadcast, [
      encodeQueueMessage(broadcastCodec, {
        schemaVersion: 1,
        messageId: `subscriptions-${run}`,
        type: 'broadcast.subscriptions-changed',
        occurredAt: new Date().toISOString(),
        payload: { workerGroupId: 'default', subscriptions },
      }),
    ]);
    await eventually('the new reserved floor', async () =>
      (await metric('lanner_controller_worker_slots_reserved', { worker_queue: urgent })) === 3 ? true : undefined,
    );
    // Nothing running was cut: the four jobs still hold their slots, and no kill frame came.
    expect(await metric('lanner_controller_worker_slots_used', { worker_queue: bulk })).toBe(4);
    expect(worker.frames.some((frame) => frame.frame?.$case === 'kill')).toBe(false);

    // When they end, bulk gets only the one shared slot left: urgent's STRICT floor is no longer lent.
    for (const job of running) worker.complete(job);
    await eventually('a fifth job', () => (worker.jobs().length >= 5 ? true : undefined));
    await pause(SETTLE_MS);
    expect(worker.jobs()).toHaveLength(5);
    expect(worker.jobs()[4].queueId).toBe(bulk);

    const urgentJobs = await publish(urgent, 3);
    await eventually('eight jobs', () => (worker.jobs().length >= 8 ? true : undefined));
    expect(
      worker
        .jobs()
        .slice(5)
        .map((job) => job.taskRunId)
        .sort(),
    ).toEqual([...urgentJobs].sort());
  });
});
