import { randomBytes } from 'node:crypto';
import { workerJobsTopic } from '@lanner/frames';
import { createKafkaQueue, parseKafkaBrokers, type QueuePort } from '@lanner/queue';
import { openRepositories, type Repositories } from '@lanner/repository';
import { startController, tearDownControllerSpec, type ControllerProcess } from './testing/controller-process';
import { metricSample } from './testing/metrics-text';
import { FakeWorker } from './testing/fake-worker';
import { createSpecDatabase, type SpecDatabase } from './testing/spec-database';
import { workerJobRecord } from './testing/spec-jobs';
import { eventually as eventuallyWithin, requiredEnv } from './testing/spec-helpers';

// The controller runs as its own process (`node bin/lanner.js server controller`)
// on the real Kafka (a namespace of this run) and a PostgreSQL database of its
// own. The spec plays the executor (publishing jobs on a worker queue's topic)
// and a worker over real gRPC, and reads what an operator would: the backlog
// of each worker queue in the controller's /metrics.

const run = randomBytes(4).toString('hex');
const namespace = `ql-${run}.`;
/** A queue the `default` group subscribes to, with no worker connected at first. */
const waiting = `waiting-${run}`;
/** A queue of the topology whose topic nobody has made yet. */
const untouched = `untouched-${run}`;
const WAIT_MS = 30_000;
const LAG = 'lanner_controller_worker_queue_lag';
const GROUP_LAG = 'lanner_controller_worker_group_queue_lag';

const eventually = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>) =>
  eventuallyWithin(what, probe, { waitMs: WAIT_MS, pollMs: 250 });

let database: SpecDatabase | undefined;
let repositories: Repositories;
let queue: QueuePort;
let controller: ControllerProcess;
let worker: FakeWorker | undefined;

/** The controller's Prometheus text. */
async function scrape(): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${controller.httpPort}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

/** The sample of `metric` with these labels, or undefined when the controller shows none. */
async function sample(metric: string, labels: Record<string, string>): Promise<number | undefined> {
  return metricSample(await scrape(), metric, labels);
}

const lagOf = (queueId: string) => sample(LAG, { worker_queue: queueId });

const lagReaches = (queueId: string, expected: number) =>
  eventually(`${LAG}{worker_queue="${queueId}"} to be ${expected}`, async () =>
    (await lagOf(queueId)) === expected ? true : undefined,
  );

beforeAll(async () => {
  database = await createSpecDatabase(`lanner_ql_spec_${run}`);
  repositories = await openRepositories(database.url);
  await repositories.workerGroups.seedReserved();
  await repositories.workerQueues.put({ id: waiting, tags: [waiting] });
  await repositories.workerQueues.put({ id: untouched, tags: [untouched] });
  await repositories.workerGroups.putSubscription('default', { workerQueueId: waiting, mode: 'STRICT' });

  queue = createKafkaQueue({
    brokers: parseKafkaBrokers(requiredEnv('KAFKA_BROKERS')),
    clientId: `queue-lag-spec-${run}`,
    namespace,
  });
  await queue.createTopics([{ topic: workerJobsTopic(waiting), partitions: 3 }]);
  controller = await startController(
    {
      DATABASE_URL: database.url,
      KAFKA_BROKERS: requiredEnv('KAFKA_BROKERS'),
      LANNER_KAFKA_NAMESPACE: namespace,
      LANNER_ALLOW_ANONYMOUS_WORKERS: 'true',
      LANNER_JWT_SIGNING_KEY: 'queue-lag-spec-signing-key-0123456789abcdef0123',
    },
    { startupWaitMs: WAIT_MS, pollMs: 100 },
  );
}, 120_000);

afterAll(async () => {
  if (worker) {
    worker.cancel();
    await worker.closed();
  }
  const code = await tearDownControllerSpec({
    controller,
    queue,
    topics: [workerJobsTopic(waiting), workerJobsTopic(untouched)],
    repositories,
    database,
  });
  expect(code).toBe(0);
}, 60_000);

describe('controller: the lag of each worker queue in /metrics', () => {
  it('shows the jobs waiting on a queue no worker serves, and 0 once a worker has taken them', async () => {
    const taskRunIds = Array.from({ length: 5 }, (_, index) => `ql-${run}-${index}`);
    await queue.publish(
      workerJobsTopic(waiting),
      taskRunIds.map((taskRunId, index) =>
        workerJobRecord({
          taskRunId,
          executionId: `ql-${run}-ex-${index}`,
          workerQueueId: waiting,
          flowId: 'queue-lag',
          taskId: 'step',
          message: taskRunId,
        }),
      ),
    );

    // No worker is connected: the five jobs wait on the topic, and the operator sees them.
    await lagReaches(waiting, 5);
    const text = await scrape();
    expect(text).toContain(`# HELP ${LAG} `);
    expect(text).toMatch(/every controller reports the same figure/);
    // Every queue of the topology shows, even one whose topic was never made; `system` is not the controllers' to serve.
    expect(await lagOf(untouched)).toBe(0);
    expect(await lagOf('default')).toBe(0);
    expect(await lagOf('system')).toBeUndefined();
    // The same backlog under the group that subscribes to the queue.
    expect(await sample(GROUP_LAG, { worker_group: 'default', worker_queue: waiting })).toBe(5);
    expect(await sample(GROUP_LAG, { worker_queue: untouched })).toBeUndefined();

    // A worker of the default group connects with room for all of them and takes them.
    worker = new FakeWorker(controller.grpcPort, { heartbeatMs: 2_000, wait: { waitMs: WAIT_MS, pollMs: 100 } });
    worker.sendHello({ workerName: `ql-worker-${run}`, slots: 5 });
    await worker.welcome();
    worker.credit(5);
    await eventually('the five jobs at the worker', () => (worker && worker.jobs().length >= 5 ? true : undefined));
    expect(
      worker
        .jobs()
        .map((job) => job.taskRunId)
        .sort(),
    ).toEqual([...taskRunIds].sort());

    await lagReaches(waiting, 0);
    expect(await lagOf(untouched)).toBe(0);
    expect(await sample(GROUP_LAG, { worker_group: 'default', worker_queue: waiting })).toBe(0);
  });
});
