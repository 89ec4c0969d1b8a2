import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  decodeQueueMessage,
  executorEventCodec,
  QueueTopics,
  workerJobsTopic,
  type ExecutorEvent,
  type Job,
} from '@lanner/frames';
import { createKafkaQueue, namespacedQueue, parseKafkaBrokers, type QueuePort } from '@lanner/queue';
import { openRepositories, type Repositories } from '@lanner/repository';
import { startController, stopController, type ControllerProcess } from './testing/controller-process';
import { FakeWorker } from './testing/fake-worker';
import { createSpecDatabase, type SpecDatabase } from './testing/spec-database';
import { jobResultFrame, workerJobRecord } from './testing/spec-jobs';
import { eventually as eventuallyWithin, pause, requiredEnv } from './testing/spec-helpers';

// What the running-job rows cost and what they still guarantee once their
// inserts and removals share statements. The controller runs as its own
// process on the real Kafka (a namespace of this run) and a PostgreSQL database
// of its own, its SQL statements counted by the bench counter preloaded into
// it; the spec plays the executor (it publishes jobs and reads
// `lanner.executor`) and workers over real gRPC.

const run = randomBytes(4).toString('hex');
const namespace = `rjs-${run}.`;
const queueId = `rjs-${run}`;
const WAIT_MS = 60_000;
/** How long the spec lets the controller run before checking it did NOT do something; nothing is asserted about speed. */
const SETTLE_MS = 1_000;
const ADOPTION_GRACE_MS = 1_000;
const workspaceRoot = join(__dirname, '..', '..', '..', '..');
const counter = join(workspaceRoot, 'tools', 'bench', 'e2e', 'counter.cjs');

const eventually = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>, waitMs = WAIT_MS) =>
  eventuallyWithin(what, probe, { waitMs, pollMs: 50 });

let database: SpecDatabase | undefined;
let repositories: Repositories;
let queue: QueuePort;
let controller: ControllerProcess | undefined;
let countsDir: string;
const workers: FakeWorker[] = [];
const executorEvents: ExecutorEvent[] = [];

const controllerEnv = (): NodeJS.ProcessEnv => ({
  DATABASE_URL: database?.url,
  KAFKA_BROKERS: requiredEnv('KAFKA_BROKERS'),
  LANNER_KAFKA_NAMESPACE: namespace,
  LANNER_ALLOW_ANONYMOUS_WORKERS: 'true',
  LANNER_JWT_SIGNING_KEY: 'running-job-statements-spec-key-0123456789',
  LANNER_WORKER_ADOPTION_GRACE_MS: String(ADOPTION_GRACE_MS),
  NODE_OPTIONS: `-r ${counter}`,
  LANNER_BENCH_COUNTS_DIR: countsDir,
  LANNER_BENCH_SQL_TEXTS: '1',
});

const start = async (): Promise<ControllerProcess> =>
  (controller = await startController(controllerEnv(), { startupWaitMs: 90_000, pollMs: 100 }));

function started(): ControllerProcess {
  if (!controller) throw new Error('no controller is running');
  return controller;
}

/** The statements that insert or remove running-job rows, by the kind of rows they write, over every controller counted. */
function runningJobStatements(): { inserting: number; removingOnly: number; all: number } {
  let inserting = 0;
  let removingOnly = 0;
  for (const file of readdirSync(countsDir).filter((name) => name.endsWith('.json'))) {
    const { counts } = JSON.parse(readFileSync(join(countsDir, file), 'utf8')) as { counts: Record<string, number> };
    for (const [kind, n] of Object.entries(counts)) {
      if (kind.startsWith('sql text INSERT INTO running_jobs') || kind.startsWith('sql text WITH dispatched')) inserting += n;
      else if (kind.startsWith('sql text WITH relayed')) removingOnly += n;
    }
  }
  return { inserting, removingOnly, all: inserting + removingOnly };
}

function connectWorker(slots: number, name: string): FakeWorker {
  const worker = new FakeWorker(started().grpcPort, { heartbeatMs: 2_000, wait: { waitMs: WAIT_MS, pollMs: 50 } });
  workers.push(worker);
  worker.sendHello({ workerName: name, slots });
  worker.credit(slots);
  return worker;
}

/** Answers every job it gets at once (SUCCESS, its slot given back with the result), unless `keep` says to hold it. */
function answerJobs(worker: FakeWorker, keep: (job: Job) => boolean = () => false): () => void {
  const answered = new Set<string>();
  const timer = setInterval(() => {
    for (const job of worker.jobs()) {
      if (answered.has(job.taskRunId) || keep(job)) continue;
      answered.add(job.taskRunId);
      worker.send(
        jobResultFrame({ taskRunId: job.taskRunId, attempt: job.attempt, credit: 1, startedAt: new Date(), endedAt: new Date() }),
      );
    }
  }, 2);
  return () => clearInterval(timer);
}

async function publishJobs(prefix: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, index) => `${prefix}-${index}`);
  await queue.publish(
    workerJobsTopic(queueId),
    ids.map((taskRunId) =>
      workerJobRecord({
        taskRunId,
        executionId: `${taskRunId}-ex`,
        workerQueueId: queueId,
        flowId: 'statements',
        taskId: 'step',
        message: taskRunId,
      }),
    ),
  );
  return ids;
}

function eventsOf(type: ExecutorEvent['type'], taskRunId: string): ExecutorEvent[] {
  return executorEvents.filter(
    (event) => event.type === type && 'taskRunId' in event.payload && event.payload.taskRunId === taskRunId,
  );
}

async function rowsOf(taskRunIds: readonly string[]): Promise<number> {
  const rows = await Promise.all(taskRunIds.map((taskRunId) => repositories.runningJobs.get(taskRunId, 1)));
  return rows.filter((row) => row !== null).length;
}

beforeAll(async () => {
  countsDir = mkdtempSync(join(tmpdir(), `rjs-${run}-`));
  database = await createSpecDatabase(`lanner_rjs_spec_${run}`);
  repositories = await openRepositories(database.url);
  await repositories.workerGroups.seedReserved();
  await repositories.workerQueues.put({ id: queueId, tags: [queueId] });
  await repositories.workerGroups.putSubscription('default', { workerQueueId: queueId });
  queue = namespacedQueue(
    createKafkaQueue({
      brokers: parseKafkaBrokers(requiredEnv('KAFKA_BROKERS')),
      clientId: `rjs-spec-${run}`,
      consumer: { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 5_000, maxWaitTimeMs: 100 },
    }),
    namespace,
  );
  await queue.createTopics(
    [QueueTopics.executor, QueueTopics.broadcast, workerJobsTopic(queueId)].map((topic) => ({ topic, partitions: 3 })),
  );
  await queue.subscribe({
    groupId: `rjs-spec-executor-${run}`,
    topics: [QueueTopics.executor],
    handler: async (message) => {
      executorEvents.push(decodeQueueMessage(executorEventCodec, message.value));
    },
  });
  await start();
}, 200_000);

afterEach(async () => {
  for (const worker of workers.splice(0)) {
    worker.cancel();
    await worker.closed();
  }
});

afterAll(async () => {
  const code = controller ? await stopController(controller, 20_000) : 0;
  await queue?.deleteTopics([QueueTopics.executor, QueueTopics.broadcast, workerJobsTopic(queueId)]).catch(() => undefined);
  await queue?.close();
  await repositories?.close();
  await database?.drop();
  if (countsDir) rmSync(countsDir, { recursive: true, force: true });
  expect(code).toBe(0);
}, 60_000);

describe('running-job rows: inserts and removals share statements', () => {
  it('costs fewer running-job statements than jobs for many fast jobs, each relayed once and no row left', async () => {
    const worker = connectWorker(4, `rjs-fast-${run}`);
    await worker.welcome();
    const stop = answerJobs(worker);
    const before = runningJobStatements();
    const jobs = await publishJobs(`rjs-${run}-fast`, 60);
    try {
      await eventually('every result relayed', () =>
        jobs.every((taskRunId) => eventsOf('task-run.result', taskRunId).length > 0) ? true : undefined,
      );
      await eventually('every row removed', async () => ((await rowsOf(jobs)) === 0 ? true : undefined));
    } finally {
      stop();
    }
    await pause(SETTLE_MS); // the counter writes its totals every 200 ms
    const after = runningJobStatements();
    const spent = { all: after.all - before.all, removingOnly: after.removingOnly - before.removingOnly };

    // Each job sent once and relayed once.
    expect(
      worker
        .jobs()
        .map((job) => job.taskRunId)
        .sort(),
    ).toEqual([...jobs].sort());
    expect(jobs.filter((taskRunId) => eventsOf('task-run.result', taskRunId).length !== 1)).toEqual([]);
    // Sixty inserts and sixty removals in fewer statements than jobs; most removals went with the inserts of the
    // jobs taking their slots (each a statement of its own before).
    expect(spent.all).toBeLessThan(jobs.length);
    expect(spent.removingOnly).toBeLessThan(jobs.length / 4);
  }, 180_000);

  it('reports each job a killed worker held lost, once, while the results of the other worker were being relayed', async () => {
    const fast = connectWorker(2, `rjs-other-${run}`);
    await fast.welcome();
    const stopFast = answerJobs(fast);
    const doomed = connectWorker(2, `rjs-doomed-${run}`);
    const welcome = await doomed.welcome();
    // The doomed worker holds what it gets; the fast one answers at once, so its rows come and go meanwhile.
    const jobs = await publishJobs(`rjs-${run}-lost`, 30);
    let held: string[] = [];
    try {
      held = await eventually('the doomed worker to hold two jobs', () => {
        const ids = doomed.jobs().map((job) => job.taskRunId);
        return ids.length === 2 ? ids : undefined;
      });
      expect(await rowsOf(held)).toBe(2);
      // Killed while holding them (its stream dropped, as when the process dies).
      doomed.cancel();
      await eventually('the held jobs reported lost', () =>
        held.every((taskRunId) => eventsOf('task-run.worker-lost', taskRunId).length > 0) ? true : undefined,
      );
      const others = jobs.filter((taskRunId) => !held.includes(taskRunId));
      await eventually('the other jobs relayed', () =>
        others.every((taskRunId) => eventsOf('task-run.result', taskRunId).length > 0) ? true : undefined,
      );
      await eventually('every row removed', async () => ((await rowsOf(jobs)) === 0 ? true : undefined));
      await pause(SETTLE_MS);
      for (const taskRunId of held) {
        expect(eventsOf('task-run.worker-lost', taskRunId).map((event) => event.payload)).toEqual([
          expect.objectContaining({ taskRunId, attempt: 1, workerId: welcome.workerId }),
        ]);
        expect(eventsOf('task-run.result', taskRunId)).toEqual([]);
      }
      expect(others.filter((taskRunId) => eventsOf('task-run.worker-lost', taskRunId).length > 0)).toEqual([]);
      expect(others.filter((taskRunId) => eventsOf('task-run.result', taskRunId).length !== 1)).toEqual([]);
      // The controller does not send them again itself: the executor puts them back as new attempts.
      expect(fast.jobs().filter((job) => held.includes(job.taskRunId))).toEqual([]);
    } finally {
      stopFast();
    }
  }, 180_000);

  it('loses no job when the controller is killed (kill -9) while jobs flow: each is sent once, by it or by the next controller, or waits in its row', async () => {
    const [listening] = started()
      .output()
      .split('\n')
      .filter((line) => line.includes('"controller gRPC listening"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const killedId = String(listening['controllerId']);
    const worker = connectWorker(4, `rjs-before-kill-${run}`);
    await worker.welcome();
    const stop = answerJobs(worker);
    const jobs = await publishJobs(`rjs-${run}-kill`, 80);
    // Killed in the middle of the flow, with inserts and removals waiting in their windows.
    await eventually('some jobs relayed', () =>
      jobs.filter((taskRunId) => eventsOf('task-run.result', taskRunId).length > 0).length >= 10 ? true : undefined,
    );
    started().child.kill('SIGKILL');
    await started().exited;
    stop();
    worker.cancel();
    await worker.closed();
    workers.splice(workers.indexOf(worker), 1);
    const sentBefore = worker.jobs().map((job) => job.taskRunId);
    expect(sentBefore.length).toBeLessThan(jobs.length);

    // A new controller and a new worker. A job sent before the kill has its row (or its result's mark), so its
    // redelivery is not sent again: its worker adopts it on reconnecting, or the liveness coordinator reports it
    // lost once the killed controller is declared gone. A job whose insert was still waiting is redelivered and sent.
    await start();
    const next = connectWorker(4, `rjs-after-kill-${run}`);
    await next.welcome();
    const stopNext = answerJobs(next);
    try {
      const accountedFor = async (): Promise<string[]> => {
        const held = new Set((await repositories.runningJobs.listByController(killedId)).map((row) => row.taskRunId));
        const sent = new Set([...sentBefore, ...next.jobs().map((job) => job.taskRunId)]);
        return jobs.filter((taskRunId) => !sent.has(taskRunId) && !held.has(taskRunId));
      };
      await eventually('every job sent, or held by a row of the killed controller', async () =>
        (await accountedFor()).length === 0 ? true : undefined,
      );
      await pause(SETTLE_MS);
      expect(await accountedFor()).toEqual([]);
      // Never sent twice: not by the new controller, and no job of the killed one again.
      const sentAfter = next.jobs().map((job) => job.taskRunId);
      expect(sentAfter.length).toBe(new Set(sentAfter).size);
      expect(sentAfter.filter((taskRunId) => sentBefore.includes(taskRunId))).toEqual([]);
      expect(sentBefore.length).toBe(new Set(sentBefore).size);
      // What the new controller sent was relayed once, and its rows are gone.
      expect(sentAfter.filter((taskRunId) => eventsOf('task-run.result', taskRunId).length !== 1)).toEqual([]);
      expect(await rowsOf(sentAfter)).toBe(0);
    } finally {
      stopNext();
    }
  }, 240_000);
});
