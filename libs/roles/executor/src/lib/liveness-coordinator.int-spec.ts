import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { decodeQueueMessage, executorEventCodec, type ExecutorEvent } from '@lanner/frames';
import type { RunningJobRecord } from '@lanner/model';
import { createKafkaQueue, type QueuePort, type QueueSubscription } from '@lanner/queue';
import { applyMigrations, openRepositories, type Repositories } from '@lanner/repository';
import { createProcessLogger, ServiceInstanceIdentity } from '@lanner/runtime';
import { eventually, pause, requiredEnv } from '@lanner/testing';
import { executorOptions, executorTopics } from './executor-options';
import { DEFAULT_LIVENESS_COORDINATOR_SETTINGS, LIVENESS_COORDINATOR_LOCK, LivenessCoordinator } from './liveness-coordinator';

// Coordinators of two executors against the real PostgreSQL and Kafka of the
// dev services, each with its own connections, as two executor processes have.
// Dead and live controllers are rows, as a controller process writes them; the
// lost jobs are read back from the executor topic (a prefix of this run).

const run = randomBytes(4).toString('hex');
const topics = executorTopics(`liveness-${run}.`);
// The defaults (10 s missed-heartbeat timeout, 30 s grace, 10 s lease): passes are
// given their time, so the spec checks the real durations without waiting them out.
const settings = DEFAULT_LIVENESS_COORDINATOR_SETTINGS;
const { missedHeartbeatTimeoutMs, disconnectedGraceMs } = settings.timings;

let serverUrl: string;
let databaseName: string;
let databaseUrl: string;
let brokers: string[];
const opened: { repositories: Repositories; queue: QueuePort }[] = [];
let observer: Repositories;
let consumer: QueuePort;
let subscription: QueueSubscription;
const events: { key: string | null; event: ExecutorEvent }[] = [];
const logger = createProcessLogger('executor', 'warn');

/** One executor's coordinator with connections of its own. */
async function executorCoordinator(name: string): Promise<LivenessCoordinator> {
  const repositories = await openRepositories(databaseUrl, { poolSize: 2 });
  const queue = createKafkaQueue({ brokers, clientId: `liveness-spec-${run}-${name}`, logger });
  opened.push({ repositories, queue });
  return new LivenessCoordinator(
    repositories,
    queue,
    executorOptions({ topics }),
    new ServiceInstanceIdentity('executor'),
    settings,
  );
}

beforeAll(async () => {
  serverUrl = requiredEnv('DATABASE_URL');
  brokers = requiredEnv('KAFKA_BROKERS').split(',');
  databaseName = `lanner_liveness_${run}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${databaseName}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  databaseUrl = url.toString();
  await applyMigrations(databaseUrl);
  observer = await openRepositories(databaseUrl, { poolSize: 2 });

  consumer = createKafkaQueue({ brokers, clientId: `liveness-spec-${run}-observer`, logger });
  await consumer.createTopics([{ topic: topics.executor, partitions: 3 }]);
  subscription = await consumer.subscribe({
    groupId: `liveness-spec-${run}`,
    topics: [topics.executor],
    fromBeginning: true,
    handler: async (message) => {
      events.push({
        key: message.key === null ? null : message.key.toString(),
        event: decodeQueueMessage(executorEventCodec, message.value),
      });
    },
  });
}, 120_000);

afterAll(async () => {
  await subscription?.close();
  await consumer?.deleteTopics([topics.executor]).catch(() => undefined);
  await consumer?.close();
  for (const { repositories, queue } of opened) {
    await queue.close().catch(() => undefined);
    await repositories.close().catch(() => undefined);
  }
  await observer?.close();
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}, 60_000);

describe('the liveness coordinator', () => {
  it('is one executor at a time; another takes over when the holder stops renewing, and at once when it stops gracefully', async () => {
    const first = await executorCoordinator('first');
    const second = await executorCoordinator('second');
    const t0 = Date.now();
    const at = (ms: number) => new Date(t0 + ms);
    const { leaseTtlMs } = settings;

    expect((await first.pass(at(0))).leader).toBe(true);
    expect((await second.pass(at(1_000))).leader).toBe(false);
    // The holder renews every pass: the other one keeps losing, even past the first lease's end.
    for (let ms = 2_000; ms <= 2 * leaseTtlMs; ms += 2_000) {
      expect((await first.pass(at(ms))).leader).toBe(true);
      expect((await second.pass(at(ms + 1_000))).leader).toBe(false);
    }
    const lastRenewal = 2 * leaseTtlMs;
    expect((await observer.clusterLocks.get(LIVENESS_COORDINATOR_LOCK))?.holder).toBe(first.holder);

    // The holder dies (no more renewals): the other takes over once the lease expired, not before.
    expect((await second.pass(at(lastRenewal + leaseTtlMs - 1))).leader).toBe(false);
    expect((await second.pass(at(lastRenewal + leaseTtlMs))).leader).toBe(true);
    expect(second.isLeader).toBe(true);
    // The old holder, back, cannot take it back while the new one renews.
    expect((await first.pass(at(lastRenewal + leaseTtlMs + 1_000))).leader).toBe(false);
    expect(first.isLeader).toBe(false);
    expect((await observer.clusterLocks.get(LIVENESS_COORDINATOR_LOCK))?.holder).toBe(second.holder);

    // A graceful stop hands the lease over without waiting for it to expire.
    await second.beforeApplicationShutdown();
    expect(await observer.clusterLocks.get(LIVENESS_COORDINATOR_LOCK)).toBeNull();
    expect((await first.pass(at(lastRenewal + leaseTtlMs + 2_000))).leader).toBe(true);
    await first.beforeApplicationShutdown();
    expect(await observer.clusterLocks.get(LIVENESS_COORDINATOR_LOCK)).toBeNull();
  }, 120_000);

  it('declares a silent controller DISCONNECTED, then NOT_RUNNING, reports each of its jobs lost once and leaves a live controller alone', async () => {
    const t0 = Date.now();
    const at = (ms: number) => new Date(t0 + ms);
    const instances = observer.serviceInstances;
    const dead = `controller-dead-${run}`;
    const live = `controller-live-${run}`;
    await instances.register({ id: dead, role: 'CONTROLLER', host: 'node-dead' }, at(0));
    await instances.register({ id: live, role: 'CONTROLLER', host: 'node-live' }, at(0));
    // An instance that ended two days ago is purged.
    await instances.register({ id: `api-old-${run}`, role: 'API', host: 'node-old' }, at(-3 * 86_400_000));
    await instances.setState(`api-old-${run}`, 'TERMINATED', at(-2 * 86_400_000));

    const job = (controller: 'dead' | 'live', n: number): RunningJobRecord => ({
      taskRunId: `tr-${controller}-${n}`,
      attempt: 1,
      tenantId: 'main',
      executionId: `exec-${controller}-${n}`,
      workerQueueId: 'default',
      workerId: `worker-of-${controller}`,
      controllerInstanceId: `controller-${controller}-${run}`,
      job: { correlationId: `corr-${controller}-${n}` },
      dispatchedAt: at(0),
    });
    const deadJobs = [job('dead', 1), job('dead', 2), job('dead', 3)];
    const liveJobs = [job('live', 1), job('live', 2)];
    // A polling trigger's poll held by the dead controller: it goes, but there is no execution to report it to.
    const deadPoll: RunningJobRecord = {
      ...job('dead', 4),
      taskRunId: `poll-dead-${run}`,
      executionId: `poll-dead-${run}`,
      job: { correlationId: 'corr-poll', payload: { triggerEvaluation: true } },
    };
    for (const record of [...deadJobs, deadPoll, ...liveJobs]) await observer.runningJobs.insert(record);
    const worker = (workerId: string, controllerInstanceId: string, heartbeatAt: Date) =>
      observer.connectedWorkers.upsert(
        {
          workerId,
          workerGroupId: 'default',
          workerName: workerId,
          controllerInstanceId,
          registrationTokenId: null,
          slots: 4,
          draining: false,
          queueIds: ['default'],
          capacity: {},
          labels: {},
          connectedAt: at(0),
        },
        heartbeatAt,
      );
    await worker('worker-of-dead', dead, at(0));
    await worker('worker-of-live', live, at(0));
    /** The live controller's process heartbeats (and refreshes its workers' rows) as its own does. */
    const liveBeats = async (ms: number) => {
      await instances.recordHeartbeat(live, at(ms));
      await observer.connectedWorkers.touchController(live, at(ms));
    };

    const coordinator = await executorCoordinator('coordinator');
    const lostReports = () => events.filter(({ event }) => event.type === 'task-run.worker-lost');
    try {
      // The coordinator's first pass starts its watch; the instance that ended two days ago is purged.
      expect(await coordinator.pass(at(0))).toMatchObject({ leader: true, purgedInstances: 1 });
      // Within the missed-heartbeat timeout nothing moves.
      await liveBeats(missedHeartbeatTimeoutMs - 1_000);
      expect(await coordinator.pass(at(missedHeartbeatTimeoutMs - 1))).toMatchObject({
        leader: true,
        disconnected: [],
        notRunning: [],
        requeued: [],
        purgedInstances: 0,
      });

      // Past it: the silent one is DISCONNECTED; its jobs wait for the grace period (its workers may re-attach elsewhere).
      await liveBeats(missedHeartbeatTimeoutMs + 500);
      expect(await coordinator.pass(at(missedHeartbeatTimeoutMs + 1_000))).toMatchObject({
        disconnected: [dead],
        notRunning: [],
        requeued: [],
      });
      expect((await instances.get(dead)).state).toBe('DISCONNECTED');
      // Through the grace period the coordinator keeps passing (its watch must not lapse) and nothing more moves.
      for (let ms = missedHeartbeatTimeoutMs + 3_000; ms < missedHeartbeatTimeoutMs + disconnectedGraceMs; ms += 2_000) {
        await liveBeats(ms - 500);
        expect(await coordinator.pass(at(ms))).toMatchObject({ leader: true, disconnected: [], notRunning: [], requeued: [] });
      }
      await liveBeats(missedHeartbeatTimeoutMs + disconnectedGraceMs);
      expect(await coordinator.pass(at(missedHeartbeatTimeoutMs + disconnectedGraceMs))).toMatchObject({
        notRunning: [],
        requeued: [],
      });
      expect(await observer.runningJobs.listByController(dead)).toHaveLength(4);

      // After the grace period: NOT_RUNNING, and every job it held is reported lost.
      const late = missedHeartbeatTimeoutMs + disconnectedGraceMs + 2_000;
      await liveBeats(late - 500);
      const pass = await coordinator.pass(at(late));
      expect(pass).toMatchObject({ disconnected: [], notRunning: [dead] });
      expect([...pass.requeued].sort()).toEqual([...deadJobs, deadPoll].map((record) => `${record.taskRunId}:1`).sort());
      expect((await instances.get(dead)).state).toBe('NOT_RUNNING');
      expect(await observer.runningJobs.listByController(dead)).toEqual([]);

      // On the executor topic: one task-run.worker-lost per job of a task run, keyed by its execution id; none for the poll.
      const lost = await eventually(
        'the lost reports',
        () => (lostReports().length >= deadJobs.length ? lostReports() : undefined),
        60_000,
      );
      const seen = lost
        .map(({ key, event }) => ({
          key,
          messageId: event.messageId,
          correlationId: event.correlationId,
          payload: event.payload,
        }))
        .sort((a, b) => a.messageId.localeCompare(b.messageId));
      expect(seen).toEqual(
        deadJobs.map((record, i) => ({
          key: record.executionId,
          messageId: `${record.taskRunId}:1`,
          correlationId: `corr-dead-${i + 1}`,
          payload: {
            tenantId: 'main',
            executionId: record.executionId,
            taskRunId: record.taskRunId,
            attempt: 1,
            workerId: 'worker-of-dead',
            reason: `the controller holding the job (${dead}) stopped`,
            // An anonymous worker (no row of its own) is of the default group, with the default strategy.
            restartStrategy: 'AFTER_TERMINATION_GRACE_PERIOD',
          },
        })),
      );

      // Another pass changes nothing: no second report; the live controller and its jobs are untouched.
      await liveBeats(late + 1_500);
      expect(await coordinator.pass(at(late + 2_000))).toMatchObject({
        leader: true,
        disconnected: [],
        notRunning: [],
        requeued: [],
      });
      expect((await instances.get(live)).state).toBe('RUNNING');
      expect(await observer.runningJobs.listByController(live)).toEqual(liveJobs);
      // The dead controller's worker row is gone, the live one's stays.
      expect((await observer.connectedWorkers.listLive(new Date(0))).map((row) => row.workerId)).toEqual(['worker-of-live']);
      expect((await instances.list()).map((instance) => instance.id).sort()).toEqual([dead, live]);
      await pause(2_000);
      expect(lostReports()).toHaveLength(deadJobs.length);
    } finally {
      await coordinator.beforeApplicationShutdown();
    }
  }, 120_000);

  it('a coordinator paused mid-pass while another executor took its lease writes nothing after it resumes', async () => {
    const t0 = Date.now();
    const at = (ms: number) => new Date(t0 + ms);
    const instances = observer.serviceInstances;
    const silent = `controller-silent-${run}`;
    await instances.register({ id: silent, role: 'CONTROLLER', host: 'node-silent' }, at(-1_000));
    await observer.runningJobs.insert({
      taskRunId: `tr-paused-${run}`,
      attempt: 1,
      tenantId: 'main',
      executionId: `exec-paused-${run}`,
      workerQueueId: 'default',
      workerId: 'worker-of-silent',
      controllerInstanceId: silent,
      job: {},
      dispatchedAt: at(0),
    });

    const paused = await executorCoordinator('paused');
    const own = opened[opened.length - 1].repositories;
    const other = await executorCoordinator('other');
    // Every call the paused coordinator makes on its own connections once it resumed.
    const callsAfterResume: string[] = [];
    let resumed = false;
    let stopNext = false;
    let stopped: () => void = () => undefined;
    let resume: () => void = () => undefined;
    const hasStopped = new Promise<void>((resolve) => (stopped = resolve));
    const resumes = new Promise<void>((resolve) => (resume = resolve));
    for (const name of ['clusterLocks', 'serviceInstances', 'connectedWorkers', 'runningJobs'] as const) {
      const store = own[name] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      for (const method of Object.getOwnPropertyNames(Object.getPrototypeOf(store))) {
        if (method === 'constructor' || typeof store[method] !== 'function') continue;
        const real = store[method].bind(store);
        store[method] = async (...args: unknown[]) => {
          if (resumed) callsAfterResume.push(`${name}.${method}`);
          const result = await real(...args);
          // The process is stopped (SIGSTOP) right after the first action of its pass.
          if (stopNext && name === 'serviceInstances' && method === 'transitionSilent') {
            stopNext = false;
            stopped();
            await resumes;
            resumed = true;
          }
          return result;
        };
      }
    }

    try {
      // The first leads and watches long enough to judge; the other passes as a follower.
      for (let ms = 0; ms < missedHeartbeatTimeoutMs; ms += 2_000) {
        expect((await paused.pass(at(ms))).leader).toBe(true);
        expect((await other.pass(at(ms + 1_000))).leader).toBe(false);
      }
      // Its next pass declares the silent controller DISCONNECTED, then the process stops.
      stopNext = true;
      const pausedPass = paused.pass(at(missedHeartbeatTimeoutMs));
      await hasStopped;
      expect((await instances.get(silent)).state).toBe('DISCONNECTED');

      // The silent controller's worker is anonymous, so of the default group: here its restart strategy is NEVER.
      const admin = new Client({ connectionString: databaseUrl });
      await admin.connect();
      try {
        await admin.query(
          `INSERT INTO worker_groups (id, name, restart_strategy, updated_at) VALUES ('default', 'Default', 'NEVER', now())
           ON CONFLICT (id) DO UPDATE SET restart_strategy = 'NEVER'`,
        );
      } finally {
        await admin.end();
      }

      // While it is stopped its lease expires; the other executor takes over and does the work.
      const takeOver = missedHeartbeatTimeoutMs + settings.leaseTtlMs + 1;
      for (let ms = missedHeartbeatTimeoutMs + 1_000; ms < takeOver; ms += 2_000)
        expect((await other.pass(at(ms))).leader).toBe(false);
      for (let ms = takeOver; ms <= takeOver + disconnectedGraceMs + 2_000; ms += 2_000)
        expect((await other.pass(at(ms))).leader).toBe(true);
      expect((await instances.get(silent)).state).toBe('NOT_RUNNING');
      expect(await observer.runningJobs.listByController(silent)).toEqual([]);
      expect((await observer.clusterLocks.get(LIVENESS_COORDINATOR_LOCK))?.holder).toBe(other.holder);
      // Reported lost with the group's strategy, so the executor fails the task run instead of running it again.
      const report = await eventually(
        'the lost report of the silent controller job',
        () => events.find(({ event }) => event.type === 'task-run.worker-lost' && event.messageId === `tr-paused-${run}:1`),
        60_000,
      );
      expect(report.event.payload).toMatchObject({ taskRunId: `tr-paused-${run}`, restartStrategy: 'NEVER' });
      const rowsBefore = await instances.list();

      // It resumes: it reads the lease once, stands down, and writes nothing.
      resume();
      expect(await pausedPass).toMatchObject({ leader: false, deposed: true, notRunning: [], requeued: [] });
      expect(callsAfterResume).toEqual(['clusterLocks.get']);
      expect(paused.isLeader).toBe(false);
      expect(await instances.list()).toEqual(rowsBefore);
      // Its next pass is refused the lease and does nothing else.
      callsAfterResume.length = 0;
      expect(await paused.pass(at(takeOver + disconnectedGraceMs + 3_000))).toMatchObject({ leader: false });
      expect(callsAfterResume).toEqual(['clusterLocks.tryAcquire']);
      expect((await observer.clusterLocks.get(LIVENESS_COORDINATOR_LOCK))?.holder).toBe(other.holder);
    } finally {
      resume();
      await paused.beforeApplicationShutdown();
      await other.beforeApplicationShutdown();
    }
  }, 120_000);
});
