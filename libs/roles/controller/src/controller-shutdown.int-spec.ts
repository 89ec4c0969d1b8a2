import { randomBytes } from 'node:crypto';
import { workerJobsTopic, type JobRef } from '@lanner/frames';
import { createKafkaQueue, parseKafkaBrokers, type QueuePort } from '@lanner/queue';
import { openRepositories, type Repositories } from '@lanner/repository';
import { startController, stopController, type ControllerProcess } from './testing/controller-process';
import { FakeWorker } from './testing/fake-worker';
import { createSpecDatabase, type SpecDatabase } from './testing/spec-database';
import { workerJobRecord } from './testing/spec-jobs';
import { eventually as eventuallyWithin, pause, requiredEnv } from './testing/spec-helpers';
import { DEFAULT_WORKER_ADOPTION_GRACE_MS } from './lib/controller-settings';

// A controller with a backlog: hundreds of jobs wait on its queue's topic, a
// 1-slot worker runs one of them. On SIGTERM the controller stops taking jobs,
// gives back the ones it fetched (uncommitted), and exits by itself; a
// controller started after it delivers every other job exactly once.
// Real Kafka (a namespace of this run), PostgreSQL, gRPC, separate processes.

const run = randomBytes(4).toString('hex');
const namespace = `sd-${run}.`;
const queueId = `backlog-${run}`;
const BACKLOG = 300;
const WAIT_MS = 60_000;
/**
 * Not a performance figure: a controller still running after this long is
 * stuck (it is then killed and the spec fails). Below the adoption grace on
 * purpose: stopping never waits it out (the jobs held keep their records).
 */
const STOPS_WITHIN_MS = DEFAULT_WORKER_ADOPTION_GRACE_MS - 1_000;
/**
 * Long enough for a wrong send to happen if the controller were going to make one; nothing is asserted about speed.
 * A SIGTERM may come while a queue's dispatch consumer is still starting: the consumer closes then too, so the
 * handlers waiting for a slot give their jobs up quietly.
 */
const SETTLE_MS = 1_000;

const eventually = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>) =>
  eventuallyWithin(what, probe, { waitMs: WAIT_MS, pollMs: 200 });

let database: SpecDatabase | undefined;
let repositories: Repositories;
let queue: QueuePort;
const controllers: ControllerProcess[] = [];
const workers: FakeWorker[] = [];

function controllerEnv(): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: database?.url,
    KAFKA_BROKERS: requiredEnv('KAFKA_BROKERS'),
    LANNER_KAFKA_NAMESPACE: namespace,
    LANNER_ALLOW_ANONYMOUS_WORKERS: 'true',
    LANNER_JWT_SIGNING_KEY: 'shutdown-spec-signing-key-0123456789abcdef',
  };
}

async function start(): Promise<ControllerProcess> {
  const controller = await startController(controllerEnv(), { startupWaitMs: WAIT_MS, pollMs: 100 });
  controllers.push(controller);
  return controller;
}

function connectWorker(controller: ControllerProcess, slots: number, credit: number, runningJobs: JobRef[] = []): FakeWorker {
  const worker = new FakeWorker(controller.grpcPort, { heartbeatMs: 2_000, runningJobs, wait: { waitMs: WAIT_MS, pollMs: 100 } });
  workers.push(worker);
  worker.sendHello({ workerName: `shutdown-worker-${run}`, slots, runningJobs });
  worker.credit(credit);
  return worker;
}

const jobIds = (worker: FakeWorker) => worker.jobs().map((job) => job.taskRunId);

beforeAll(async () => {
  database = await createSpecDatabase(`lanner_sd_spec_${run}`);
  repositories = await openRepositories(database.url);
  await repositories.workerGroups.seedReserved();
  await repositories.workerQueues.put({ id: queueId, tags: [queueId] });
  await repositories.workerGroups.putSubscription('default', { workerQueueId: queueId, mode: 'STRICT' });
  queue = createKafkaQueue({
    brokers: parseKafkaBrokers(requiredEnv('KAFKA_BROKERS')),
    clientId: `shutdown-spec-${run}`,
    namespace,
  });
  await queue.createTopics([{ topic: workerJobsTopic(queueId), partitions: 3 }]);
}, 120_000);

afterAll(async () => {
  for (const worker of workers.splice(0)) {
    worker.cancel();
    await worker.closed();
  }
  const codes: (number | null)[] = [];
  for (const controller of controllers) codes.push(controller.child.exitCode ?? (await stopController(controller, 30_000)));
  await queue?.deleteTopics([workerJobsTopic(queueId)]).catch(() => undefined);
  await queue?.close();
  await repositories?.close();
  await database?.drop();
  expect(codes).toEqual(codes.map(() => 0));
}, 90_000);

describe('controller shutdown with a backlog on its topics', () => {
  it('exits by itself on SIGTERM while jobs wait for a slot, and a controller started after it delivers each of them exactly once', async () => {
    const first = await start();
    const busy = connectWorker(first, 1, 1);
    await busy.welcome();
    const taskRunIds = Array.from({ length: BACKLOG }, (_, index) => `sd-${run}-${index + 1}`);
    const records = taskRunIds.map((taskRunId) =>
      workerJobRecord({
        taskRunId,
        executionId: `${taskRunId}-ex`,
        workerQueueId: queueId,
        flowId: 'backlog',
        taskId: 'step',
        message: taskRunId,
      }),
    );
    await queue.publish(workerJobsTopic(queueId), records);
    // The worker runs one job and grants nothing more: the controller holds fetched jobs waiting for its slot.
    await eventually('one job on the busy worker', () => (jobIds(busy).length === 1 ? true : undefined));
    const running = jobIds(busy)[0];
    busy.send({ frame: { $case: 'jobStarted', value: { taskRunId: running, attempt: 1, startedAt: new Date() } } });
    await pause(SETTLE_MS);
    expect(jobIds(busy)).toEqual([running]);

    const stoppingAt = Date.now();
    const code = await stopController(first, STOPS_WITHIN_MS);
    const stoppedAfterMs = Date.now() - stoppingAt;
    expect({ code, stoppedWithinLimit: stoppedAfterMs < STOPS_WITHIN_MS }).toEqual({ code: 0, stoppedWithinLimit: true });
    // The worker was told to go elsewhere.
    expect(busy.frameOf('reconnect')).toBeDefined();
    // The jobs given back are not reported as failures: a stopping controller has nothing to warn about.
    expect(first.output()).not.toContain('queue handler failed');

    // The running job keeps its record, for its worker to take along when it reconnects (or for the liveness coordinator).
    const heldBefore = await repositories.runningJobs.get(running, 1);
    expect(heldBefore).not.toBeNull();

    // Another controller: the worker comes back still running its job, with room for everything else,
    // and gets every job the first controller did not send, once.
    const second = await start();
    const fresh = connectWorker(second, BACKLOG, BACKLOG, [{ taskRunId: running, attempt: 1 }]);
    await fresh.welcome();
    // Adopted: its record now names the second controller, and the worker is not told to stop it.
    const adopted = await repositories.runningJobs.get(running, 1);
    expect(adopted?.controllerInstanceId).toBeDefined();
    expect(adopted?.controllerInstanceId).not.toBe(heldBefore?.controllerInstanceId);
    expect(fresh.frameOf('kill')).toBeUndefined();
    await eventually(`${BACKLOG - 1} jobs on the new worker`, () => (jobIds(fresh).length >= BACKLOG - 1 ? true : undefined));
    await pause(SETTLE_MS);
    const delivered = [...jobIds(busy), ...jobIds(fresh)];
    expect(delivered).toHaveLength(BACKLOG);
    expect(new Set(delivered)).toEqual(new Set(taskRunIds));
  });
});
