import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { generateSecretToken, hashToken, signingKeyFrom, WorkerAccessTokens } from '@lanner/auth';
import {
  broadcastCodec,
  decodeQueueMessage,
  encodeQueueMessage,
  ErrorCode,
  executorEventCodec,
  jobMessageId,
  QueueTopics,
  SubscriptionMode,
  WorkerAuthServiceClient,
  workerJobsTopic,
  type BroadcastMessage,
  type Credentials,
  type ExecutorEvent,
  type Job,
  type JobRef,
  type Welcome,
} from '@lanner/frames';
import { createKafkaQueue, namespacedQueue, parseKafkaBrokers, type QueuePort, type QueueRecord } from '@lanner/queue';
import { CONNECTED_WORKER_STALE_MS, openRepositories, type Repositories } from '@lanner/repository';
import jwt from 'jsonwebtoken';
import {
  spawnController as spawnSharedController,
  startController as startSharedController,
  stopController,
  type ControllerProcess,
} from './testing/controller-process';
import { unheldRowQuietMs } from './lib/ledger-reconciler';
import { FakeWorker } from './testing/fake-worker';
import { createSpecDatabase, type SpecDatabase } from './testing/spec-database';
import { jobResultFrame, workerJobRecord } from './testing/spec-jobs';
import { eventually as eventuallyWithin, freePort, pause, requiredEnv } from './testing/spec-helpers';

// Worker sessions as users meet them: the controller runs as its own process
// (`node bin/lanner.js server controller`) on the real Kafka (under a namespace
// of this run) and a PostgreSQL database of this spec's own; the spec plays the
// workers (grpc-js clients on the generated definitions), the API (it writes
// groups and tokens straight into the database and publishes broadcasts) and
// the executor (it publishes jobs and reads lanner.executor).

const run = randomBytes(4).toString('hex');
const namespace = `ctl-sessions-${run}.`;
const SIGNING_KEY = `worker-sessions-spec-signing-key-${run}-0123456789`;
const groupId = `team-${run}`;
const otherGroupId = `other-${run}`;
const queueId = `q-team-${run}`;
const otherQueueId = `q-other-${run}`;
const anonymousQueueId = `q-anon-${run}`;
const executionPrefix = `sess-${run}-ex`;
const WAIT_MS = 30_000;
/** A loaded machine (other suites share it) can take a while to start a Node process and join a Kafka group. */
const STARTUP_WAIT_MS = 90_000;
/** Long enough for a wrong send to happen if the controller were going to make one; nothing is asserted about speed. */
const SETTLE_MS = 1_000;
/**
 * The adoption grace of this spec's controllers (LANNER_WORKER_ADOPTION_GRACE_MS; 10 s by default): the jobs of an
 * ended stream wait this long before they are reported lost. The spec waits for the controller's line saying the
 * grace is over, never sleeps through it.
 */
const ADOPTION_GRACE_MS = 1_800;
/** The ledger reconciliation period of the adoption specs' controllers (30 s by default). */
const RECONCILE_MS = 100;

const eventually = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>, waitMs = WAIT_MS) =>
  eventuallyWithin(what, probe, { waitMs, pollMs: 50 });

// --- controller processes ------------------------------------------------------------

/** This spec's database, Kafka namespace and signing key; `env` adds to them. */
function controllerEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: database.url,
    KAFKA_BROKERS: requiredEnv('KAFKA_BROKERS'),
    LANNER_KAFKA_NAMESPACE: namespace,
    LANNER_JWT_SIGNING_KEY: SIGNING_KEY,
    LANNER_WORKER_ADOPTION_GRACE_MS: String(ADOPTION_GRACE_MS),
    ...env,
  };
}

const spawnController = (env: NodeJS.ProcessEnv) => spawnSharedController(controllerEnv(env));

const controllers: ControllerProcess[] = [];

async function startController(env: NodeJS.ProcessEnv): Promise<ControllerProcess> {
  const controller = await startSharedController(controllerEnv(env), { startupWaitMs: STARTUP_WAIT_MS, pollMs: 50 });
  controllers.push(controller);
  return controller;
}

// --- the spec's workers -------------------------------------------------------------------

interface WorkerOptions {
  readonly accessToken?: string;
  readonly credentials?: grpc.ChannelCredentials;
  readonly runningJobs?: JobRef[];
}

function metadataWith(accessToken: string | undefined): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (accessToken !== undefined) metadata.set('authorization', `Bearer ${accessToken}`);
  return metadata;
}

class SpecWorker extends FakeWorker {
  constructor(port: number, options: WorkerOptions = {}) {
    super(port, {
      metadata: metadataWith(options.accessToken),
      credentials: options.credentials,
      runningJobs: options.runningJobs,
      heartbeatMs: 1_000,
      wait: { waitMs: WAIT_MS, pollMs: 50 },
    });
  }

  hello(slots = 2): void {
    this.sendHello({
      workerName: `sessions-spec-${run}`,
      slots,
      labels: { zone: 'spec' },
      runningJobs: [...this.running.values()],
    });
  }

  start(job: Job): void {
    this.send({
      frame: { $case: 'jobStarted', value: { taskRunId: job.taskRunId, attempt: job.attempt, startedAt: new Date() } },
    });
  }

  succeed(ref: JobRef): void {
    this.send(
      jobResultFrame({ taskRunId: ref.taskRunId, attempt: ref.attempt, credit: 0, startedAt: undefined, endedAt: new Date() }),
    );
  }

  close(): void {
    this.cancel();
  }
}

const workers: SpecWorker[] = [];

function connectWorker(port: number, options?: WorkerOptions): SpecWorker {
  const worker = new SpecWorker(port, options);
  workers.push(worker);
  return worker;
}

function register(port: number, registrationToken: string): Promise<Credentials> {
  const client = new WorkerAuthServiceClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  return new Promise<Credentials>((resolve, reject) =>
    client.register({ registrationToken, workerName: `sessions-spec-${run}` }, (error, credentials) => {
      client.close();
      if (error) reject(error);
      else resolve(credentials);
    }),
  );
}

async function refusal(worker: SpecWorker): Promise<{ code: grpc.status; details: string; error: string | undefined }> {
  const status = await worker.closed();
  const error = worker.frameOf('error');
  expect(worker.frameOf('welcome')).toBeUndefined();
  if (error) expect(error.code).toBe(status.code === grpc.status.UNAUTHENTICATED ? ErrorCode.UNAUTHENTICATED : error.code);
  return { code: status.code, details: status.details, error: error?.message };
}

// --- fixture -------------------------------------------------------------------------

/** A migrated database of this spec's own on the server DATABASE_URL names. */
function createTestDatabase(suffix = 'main'): Promise<SpecDatabase> {
  return createSpecDatabase(`lanner_ctl_sessions_${run}_${suffix}`);
}

let database: SpecDatabase;
let repositories: Repositories;
let queue: QueuePort;
const executorEvents: ExecutorEvent[] = [];
let jobCount = 0;
/** Registration tokens of this run (values), by group. */
const tokens = new Map<string, { value: string; id: string }>();

function tokenOf(workerGroupId: string): string {
  const token = tokens.get(workerGroupId);
  if (!token) throw new Error(`no registration token made for ${workerGroupId}`);
  return token.value;
}

async function createToken(workerGroupId: string, name: string): Promise<{ value: string; id: string }> {
  const value = generateSecretToken();
  const record = await repositories.registrationTokens.create(workerGroupId, name, hashToken(value));
  return { value, id: record.id };
}

function jobRecordOf(n: number, onQueue: string): { taskRunId: string; executionId: string; record: QueueRecord } {
  const executionId = `${executionPrefix}-${n}`;
  const taskRunId = `sess-${run}-tr-${n}`;
  const record = workerJobRecord({
    taskRunId,
    executionId,
    workerQueueId: onQueue,
    flowId: 'sessions-spec',
    taskId: 'hello',
    message: `job ${n}`,
    correlationId: `corr-${n}`,
    timeoutMs: 60_000,
  });
  return { taskRunId, executionId, record };
}

async function publishJob(onQueue: string): Promise<{ taskRunId: string; executionId: string }> {
  jobCount += 1;
  const { taskRunId, executionId, record } = jobRecordOf(jobCount, onQueue);
  await queue.publish(workerJobsTopic(onQueue), [record]);
  return { taskRunId, executionId };
}

/** The job message of `publishJob`'s n-th job once more, as Kafka redelivers a message whose offset was not committed. */
async function redeliverJob(onQueue: string, taskRunId: string): Promise<void> {
  const n = Number(taskRunId.slice(`sess-${run}-tr-`.length));
  await queue.publish(workerJobsTopic(onQueue), [jobRecordOf(n, onQueue).record]);
}

function executionIdOf(taskRunId: string): string {
  return `${executionPrefix}-${taskRunId.slice(`sess-${run}-tr-`.length)}`;
}

/** What the executor stores once it has handled a job's end: the first attempt of each task run, ended in `state`. */
async function storeEndedAttempts(
  ended: { executionId: string; taskRunId: string; state: 'SUCCESS' | 'RESUBMITTED' }[],
): Promise<void> {
  const at = new Date();
  for (const { executionId, taskRunId, state } of ended) {
    const created = await repositories.executions.create('main', {
      id: executionId,
      namespace: 'company.team',
      flowId: 'sessions-spec',
      flowRevision: 1,
      state: 'RUNNING',
      stateHistories: [{ state: 'RUNNING', date: at }],
    });
    const attempt = {
      attempt: 1,
      workerId: null,
      workerQueueId: queueId,
      state,
      outputs: null,
      error: null,
      startedAt: at,
      endedAt: at,
    };
    const runState = state === 'SUCCESS' ? 'SUCCESS' : 'SUBMITTED';
    const attempts =
      state === 'SUCCESS' ? [attempt] : [attempt, { ...attempt, attempt: 2, state: 'SUBMITTED' as const, endedAt: null }];
    await repositories.executions.update('main', executionId, created.version, {
      taskRuns: [
        {
          id: taskRunId,
          executionId,
          taskId: 'hello',
          parentTaskRunId: null,
          value: null,
          state: runState,
          stateHistories: [{ state: runState, date: at }],
          outputs: null,
          workerQueueId: queueId,
          workerSelector: null,
          dispatchReason: null,
          error: null,
          attempts,
        },
      ],
    });
  }
}

/** The worker sends the job's result: it is relayed, the job's row goes, and the job was never reported lost. */
async function finishesNeverReportedLost(worker: SpecWorker, taskRunId: string): Promise<void> {
  worker.succeed({ taskRunId, attempt: 1 });
  await eventually('the result', () => eventsFor('task-run.result', taskRunId)[0]);
  await eventually('the running job to be removed', async () =>
    (await repositories.runningJobs.get(taskRunId, 1)) === null ? true : undefined,
  );
  expect(eventsFor('task-run.worker-lost', taskRunId)).toEqual([]);
}

async function publishBroadcast(message: Omit<BroadcastMessage, 'schemaVersion' | 'occurredAt' | 'messageId'>): Promise<void> {
  await queue.publish(QueueTopics.broadcast, [
    encodeQueueMessage(broadcastCodec, {
      schemaVersion: 1,
      messageId: `spec-${randomBytes(6).toString('hex')}`,
      occurredAt: new Date().toISOString(),
      ...message,
    } as BroadcastMessage),
  ]);
}

/** The controller's line once the adoption grace of an ended stream of `workerId` is over (with how many jobs it reported lost). */
function graceOver(controller: ControllerProcess, workerId: string): Promise<Record<string, unknown>> {
  return eventually(
    `the adoption grace of the ended stream of ${workerId} to be over`,
    () =>
      controller
        .output()
        .split('\n')
        .filter((line) => line.includes('"adoption grace over for an ended stream"'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line['workerId'] === workerId),
    ADOPTION_GRACE_MS + WAIT_MS,
  );
}

function eventsFor(type: ExecutorEvent['type'], taskRunId: string): ExecutorEvent[] {
  return executorEvents.filter(
    (event) => event.type === type && 'taskRunId' in event.payload && event.payload.taskRunId === taskRunId,
  );
}

beforeAll(async () => {
  database = await createTestDatabase();
  repositories = await openRepositories(database.url);
  await repositories.workerGroups.seedReserved();
  for (const id of [queueId, otherQueueId, anonymousQueueId]) await repositories.workerQueues.put({ id, tags: [id] });
  await repositories.workerGroups.put({ id: groupId, name: 'Team', subscriptions: [{ workerQueueId: queueId }] });
  await repositories.workerGroups.put({ id: otherGroupId, name: 'Other', subscriptions: [{ workerQueueId: otherQueueId }] });
  await repositories.workerGroups.putSubscription('default', { workerQueueId: anonymousQueueId });
  tokens.set(groupId, await createToken(groupId, 'team-token'));
  tokens.set(otherGroupId, await createToken(otherGroupId, 'other-token'));

  queue = namespacedQueue(
    createKafkaQueue({
      brokers: parseKafkaBrokers(requiredEnv('KAFKA_BROKERS')),
      clientId: `sessions-spec-${run}`,
      consumer: { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 5_000, maxWaitTimeMs: 100 },
    }),
    namespace,
  );
  await queue.createTopics(
    [
      QueueTopics.executor,
      QueueTopics.logs,
      QueueTopics.broadcast,
      ...[queueId, otherQueueId, anonymousQueueId, 'default'].map(workerJobsTopic),
    ].map((topic) => ({
      topic,
      partitions: 3,
    })),
  );
  await queue.subscribe({
    groupId: `sessions-spec-executor-${run}`,
    topics: [QueueTopics.executor],
    handler: async (message) => {
      const event = decodeQueueMessage(executorEventCodec, message.value);
      if (event.payload.executionId.startsWith(executionPrefix)) executorEvents.push(event);
    },
  });
}, 120_000);

afterEach(async () => {
  for (const worker of workers.splice(0)) {
    worker.close();
    await worker.closed();
  }
});

afterAll(async () => {
  const exits = await Promise.all(controllers.map((controller) => stopController(controller, 30_000)));
  await queue
    ?.deleteTopics([
      QueueTopics.executor,
      QueueTopics.logs,
      QueueTopics.broadcast,
      ...[queueId, otherQueueId, anonymousQueueId, 'default'].map(workerJobsTopic),
    ])
    .catch(() => undefined);
  await queue?.close();
  await repositories?.close();
  await database?.drop();
  expect(exits).toEqual(exits.map(() => 0));
}, 90_000);

// --- scenarios --------------------------------------------------------------------------

describe('worker sessions: authentication', () => {
  let controller: ControllerProcess;

  beforeAll(async () => {
    controller = await startController({ LANNER_ALLOW_ANONYMOUS_WORKERS: 'false', LANNER_STREAM_RECYCLE_AGE_S: '0' });
  }, 120_000);

  it("registers with a registration token, connects with the access token and is welcomed with its group's subscriptions", async () => {
    const credentials = await register(controller.grpcPort, tokenOf(groupId));
    expect(credentials.workerGroupId).toBe(groupId);

    const worker = connectWorker(controller.grpcPort, { accessToken: credentials.accessToken });
    worker.hello();
    const welcome = await worker.welcome();
    expect(welcome.workerId).toBe(credentials.workerId);
    expect(welcome.workerGroupId).toBe(groupId);
    expect(welcome.subscriptions).toEqual([{ queueId, reservedPercent: 0, mode: SubscriptionMode.STRICT }]);

    // The live registry shows it, with the group's queues and its capacity.
    const row = await eventually('the registry row', async () =>
      (await repositories.connectedWorkers.listLiveByGroup(groupId, new Date(Date.now() - CONNECTED_WORKER_STALE_MS))).find(
        (candidate) => candidate.workerId === welcome.workerId,
      ),
    );
    expect(row).toEqual(
      expect.objectContaining({
        workerGroupId: groupId,
        controllerInstanceId: welcome.controllerId,
        slots: 2,
        draining: false,
        queueIds: [queueId],
        labels: { zone: 'spec' },
      }),
    );
    expect(row.capacity).toEqual(expect.objectContaining({ slots: 2, used: 0 }));

    worker.close();
    await worker.closed();
    await eventually('the registry row to go', async () =>
      (await repositories.connectedWorkers.listLiveByGroup(groupId, new Date(0))).some(
        (candidate) => candidate.workerId === welcome.workerId,
      )
        ? undefined
        : true,
    );
  });

  it('keeps a worker that reconnects at once (same token, same worker id) in the registry', async () => {
    const credentials = await register(controller.grpcPort, tokenOf(groupId));
    const first = connectWorker(controller.grpcPort, { accessToken: credentials.accessToken });
    first.hello();
    await first.welcome();
    first.close();
    const second = connectWorker(controller.grpcPort, { accessToken: credentials.accessToken });
    second.hello();
    expect((await second.welcome()).workerId).toBe(credentials.workerId);

    const liveRow = async () =>
      (await repositories.connectedWorkers.listLiveByGroup(groupId, new Date(Date.now() - CONNECTED_WORKER_STALE_MS))).find(
        (candidate) => candidate.workerId === credentials.workerId,
      );
    await eventually('the registry row of the new stream', liveRow);
    await pause(SETTLE_MS);
    expect(await liveRow()).toEqual(expect.objectContaining({ workerId: credentials.workerId, draining: false }));
  });

  it('refuses a stream without a token when anonymous workers are not allowed, naming the variable', async () => {
    const worker = connectWorker(controller.grpcPort);
    worker.hello();
    const { code, details } = await refusal(worker);
    expect(code).toBe(grpc.status.UNAUTHENTICATED);
    expect(details).toContain('LANNER_ALLOW_ANONYMOUS_WORKERS');
  });

  it('refuses an expired, a tampered, a foreign-signed and a malformed access token, each with its reason and never echoing it', async () => {
    const credentials = await register(controller.grpcPort, tokenOf(groupId));
    const claims = jwt.decode(credentials.accessToken) as Record<string, unknown>;
    const accessTokens = new WorkerAccessTokens(signingKeyFrom(SIGNING_KEY, 'spec'), 60);
    const expired = accessTokens.issue(
      { workerId: credentials.workerId, workerGroupId: groupId, registrationTokenId: String(claims['registration_token_id']) },
      new Date(Date.now() - 3_600_000),
    ).token;
    const [header, payload, signature] = credentials.accessToken.split('.');
    const forged = Buffer.from(JSON.stringify({ ...claims, worker_group_id: otherGroupId })).toString('base64url');
    const tampered = [header, forged, signature].join('.');
    const { iat: _iat, nbf: _nbf, exp: _exp, ...plain } = claims;
    const foreign = jwt.sign(plain, `another-cluster-signing-key-${run}-0123456789`, { algorithm: 'HS256' });

    const cases: [string, RegExp][] = [
      [expired, /^the access token expired at \d{4}-\d\d-\d\dT.*; refresh it$/],
      [tampered, /not signed by this cluster/],
      [foreign, /not signed by this cluster/],
      ['not-a-jwt', /not a well-formed JWT/],
    ];
    for (const [token, reason] of cases) {
      const worker = connectWorker(controller.grpcPort, { accessToken: token });
      worker.hello();
      const { code, details, error } = await refusal(worker);
      expect(code).toBe(grpc.status.UNAUTHENTICATED);
      expect(details).toMatch(reason);
      expect(error).toBe(details);
      expect(details).not.toContain(token);
    }
    expect(payload).toBeDefined();
  });

  it('serves a worker only the queues of the group its token belongs to', async () => {
    const credentials = await register(controller.grpcPort, tokenOf(otherGroupId));
    const worker = connectWorker(controller.grpcPort, { accessToken: credentials.accessToken });
    worker.hello();
    const welcome = await worker.welcome();
    expect(welcome.workerGroupId).toBe(otherGroupId);
    expect(welcome.subscriptions.map((subscription) => subscription.queueId)).toEqual([otherQueueId]);
    worker.credit(2);

    const theirs = await publishJob(queueId);
    const own = await publishJob(otherQueueId);
    await eventually('its own job', () => worker.jobs().find((job) => job.taskRunId === own.taskRunId));
    await pause(SETTLE_MS);
    expect(worker.jobs().map((job) => job.taskRunId)).toEqual([own.taskRunId]);

    // The other group's job is still waiting for a worker of that group.
    const teamWorker = connectWorker(controller.grpcPort, {
      accessToken: (await register(controller.grpcPort, tokenOf(groupId))).accessToken,
    });
    teamWorker.hello();
    await teamWorker.welcome();
    teamWorker.credit(1);
    await eventually('the team job on the team worker', () =>
      teamWorker.jobs().find((job) => job.taskRunId === theirs.taskRunId),
    );
  });

  it("refuses a worker whose group subscribes to the 'system' queue, naming the group and the queue", async () => {
    // The API, the setup file and Terraform refuse this subscription; the row is written around them, as a hand edit would.
    const systemGroupId = `sys-${run}`;
    await repositories.workerGroups.put({
      id: systemGroupId,
      name: 'Wants system',
      subscriptions: [{ workerQueueId: 'system' }, { workerQueueId: queueId }],
    });
    const token = await createToken(systemGroupId, 'sys-token');
    const worker = connectWorker(controller.grpcPort, {
      accessToken: (await register(controller.grpcPort, token.value)).accessToken,
    });
    worker.hello();

    const { code, details, error } = await refusal(worker);
    expect(code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(details).toBe(
      `the worker group '${systemGroupId}' subscribes to the 'system' worker queue, which only the executor's in-process system worker serves: remove that subscription (workerQueueId 'system') from the group`,
    );
    expect(error).toBe(details);
  });

  it('ends the streams of a revoked registration token at once, sends them nothing more, and refuses the token afterwards', async () => {
    const revoked = await createToken(groupId, `to-revoke-${run}`);
    const credentials = await register(controller.grpcPort, revoked.value);
    const worker = connectWorker(controller.grpcPort, { accessToken: credentials.accessToken });
    worker.hello();
    await worker.welcome();

    await repositories.registrationTokens.revoke(groupId, revoked.id, new Date());
    const broadcastAt = Date.now();
    await publishBroadcast({
      type: 'broadcast.token-revoked',
      payload: { workerGroupId: groupId, registrationTokenId: revoked.id },
    });
    const status = await worker.closed();
    const endedAfterMs = Date.now() - broadcastAt;
    expect(status.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(status.details).toBe('the registration token of this worker was revoked');
    expect(worker.frameOf('error')).toEqual({
      code: ErrorCode.UNAUTHENTICATED,
      message: 'the registration token of this worker was revoked',
      fatal: true,
    });
    // The broadcast travels through Kafka; the controller acts on it as soon as it reads it.
    expect(endedAfterMs).toBeLessThan(5_000);

    // Its (still unexpired) access token no longer opens a stream, and a new job waits for another worker.
    const again = connectWorker(controller.grpcPort, { accessToken: credentials.accessToken });
    again.credit(1);
    again.hello();
    const { code, details } = await refusal(again);
    expect(code).toBe(grpc.status.UNAUTHENTICATED);
    expect(details).toBe('the registration token of this worker was revoked');
    await expect(register(controller.grpcPort, revoked.value)).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });

    // A job published now waits for a worker whose token still stands.
    const { taskRunId } = await publishJob(queueId);
    const valid = connectWorker(controller.grpcPort, {
      accessToken: (await register(controller.grpcPort, tokenOf(groupId))).accessToken,
    });
    valid.hello();
    await valid.welcome();
    valid.credit(1);
    await eventually('the job on a worker with a valid token', () => valid.jobs().find((job) => job.taskRunId === taskRunId));
    expect(worker.jobs()).toEqual([]);
    expect(again.jobs()).toEqual([]);
  });

  it('applies a subscriptions broadcast to connected workers: ConfigChanged frame, and the registry shows the new capacity', async () => {
    const credentials = await register(controller.grpcPort, tokenOf(otherGroupId));
    const worker = connectWorker(controller.grpcPort, { accessToken: credentials.accessToken });
    worker.hello(4);
    const welcome = await worker.welcome();

    await publishBroadcast({
      type: 'broadcast.subscriptions-changed',
      payload: {
        workerGroupId: otherGroupId,
        subscriptions: [{ workerQueueId: otherQueueId, reservedPercent: 50, mode: 'ELASTIC' }],
      },
    });
    const changed = await eventually('the ConfigChanged frame', () => worker.frameOf('configChanged'));
    expect(changed.subscriptions).toEqual([{ queueId: otherQueueId, reservedPercent: 50, mode: SubscriptionMode.ELASTIC }]);

    const row = await eventually(
      'the registry to show the new reservation',
      async () => {
        const found = (
          await repositories.connectedWorkers.listLiveByGroup(otherGroupId, new Date(Date.now() - CONNECTED_WORKER_STALE_MS))
        ).find((candidate) => candidate.workerId === welcome.workerId);
        const capacity = found?.capacity as
          | {
              reserved?: number;
              subscriptions?: { workerQueueId: string; reservedPercent: number; reserved: number; mode: string }[];
            }
          | undefined;
        return capacity?.reserved === 2 ? capacity : undefined;
      },
      5_000,
    );
    expect(row.subscriptions).toEqual([
      expect.objectContaining({ workerQueueId: otherQueueId, reservedPercent: 50, reserved: 2, mode: 'ELASTIC' }),
    ]);
    // The stream was not cut.
    expect(worker.frameOf('error')).toBeUndefined();
    expect(worker.frameOf('reconnect')).toBeUndefined();
  });

  it('never writes a registration token or an access token to its log', async () => {
    const credentials = await register(controller.grpcPort, tokenOf(groupId));
    const worker = connectWorker(controller.grpcPort, { accessToken: credentials.accessToken });
    worker.hello();
    await worker.welcome();
    const log = controller.output();
    expect(log).toContain('"worker connected"');
    for (const { value } of tokens.values()) expect(log).not.toContain(value);
    expect(log).not.toContain(credentials.accessToken.split('.')[2]);
    expect(log).not.toContain(credentials.refreshToken);
  });
});

describe('worker sessions: stream recycling and adoption', () => {
  let controller: ControllerProcess;

  beforeAll(async () => {
    controller = await startController({ LANNER_ALLOW_ANONYMOUS_WORKERS: 'true', LANNER_STREAM_RECYCLE_AGE_S: '3' });
  }, 120_000);

  it('recycles an old stream with a Reconnect frame; the job running on the worker is adopted by the next stream, never reported lost', async () => {
    let worker = connectWorker(controller.grpcPort);
    worker.hello();
    await worker.welcome();
    worker.credit(1);
    const { taskRunId } = await publishJob(anonymousQueueId);
    const job = await eventually('the job', () => worker.jobs().find((candidate) => candidate.taskRunId === taskRunId));
    worker.start(job);

    // The worker follows every Reconnect with a new stream listing the job it still runs, for longer than the adoption grace.
    const until = Date.now() + ADOPTION_GRACE_MS + SETTLE_MS;
    let reconnects = 0;
    while (reconnects < 2 || Date.now() < until) {
      await eventually('a Reconnect frame', () => worker.frameOf('reconnect'), 10_000);
      reconnects += 1;
      const status = await worker.closed();
      expect(status.code).toBe(grpc.status.OK);
      worker = connectWorker(controller.grpcPort, { runningJobs: [...worker.running.values()] });
      worker.hello();
      await worker.welcome();
    }
    expect(reconnects).toBeGreaterThanOrEqual(2);
    const row = await repositories.runningJobs.get(taskRunId, 1);
    expect(row?.workerId).toBe((await worker.welcome()).workerId);

    await finishesNeverReportedLost(worker, taskRunId);
  }, 120_000);

  it('reports a started job lost when the worker stops listing it in its heartbeats and never sends its result', async () => {
    const worker = connectWorker(controller.grpcPort);
    worker.hello();
    const welcome = await worker.welcome();
    worker.credit(1);
    const { taskRunId } = await publishJob(anonymousQueueId);
    const job = await eventually('the job', () => worker.jobs().find((candidate) => candidate.taskRunId === taskRunId));
    worker.start(job);
    worker.running.clear(); // the task vanished on the worker without a result

    const lost = await eventually('the job reported lost', () => eventsFor('task-run.worker-lost', taskRunId)[0]);
    expect(lost.payload).toEqual(expect.objectContaining({ taskRunId, attempt: 1, workerId: welcome.workerId }));
    expect((lost.payload as { reason: string }).reason).toContain('heartbeats');
  }, 60_000);
});

describe('worker sessions: an unseeded topology', () => {
  let bare: SpecDatabase;
  let controller: ControllerProcess;

  beforeAll(async () => {
    bare = await createTestDatabase('bare');
    controller = await startController({ DATABASE_URL: bare.url, LANNER_ALLOW_ANONYMOUS_WORKERS: 'true' });
  }, 120_000);

  afterAll(async () => {
    controller.child.kill('SIGTERM');
    expect(await controller.exited).toBe(0);
    controllers.splice(controllers.indexOf(controller), 1);
    await bare.drop();
  }, 120_000);

  it('refuses workers with UNAVAILABLE, saying how to seed the topology, instead of inventing a default group', async () => {
    const worker = connectWorker(controller.grpcPort);
    worker.hello();
    const { code, details } = await refusal(worker);
    expect(code).toBe(grpc.status.UNAVAILABLE);
    expect(details).toBe('the worker topology is not seeded; start the api or run lanner db migrate');
  });
});

describe('worker sessions: TLS', () => {
  let dir: string;
  let controller: ControllerProcess;
  const pem = (name: string) => readFileSync(join(dir, name));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lanner-ctl-tls-'));
    const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    openssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '1',
      '-subj',
      '/CN=Lanner spec CA',
    );
    writeFileSync(join(dir, 'server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
    openssl(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.pem',
      '-days',
      '1',
      '-extfile',
      'server.ext',
    );
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/CN=spec-worker');
    openssl(
      'x509',
      '-req',
      '-in',
      'client.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'client.pem',
      '-days',
      '1',
    );
    // A certificate from a CA the controller does not trust.
    openssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'stranger.key',
      '-out',
      'stranger.pem',
      '-days',
      '1',
      '-subj',
      '/CN=stranger',
    );
    controller = await startController({
      LANNER_ALLOW_ANONYMOUS_WORKERS: 'true',
      LANNER_GRPC_TLS_CERT: join(dir, 'server.pem'),
      LANNER_GRPC_TLS_KEY: join(dir, 'server.key'),
      LANNER_GRPC_TLS_CA: join(dir, 'ca.pem'),
      LANNER_GRPC_TLS_CLIENT_AUTH: 'REQUIRE',
    });
  }, 120_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('with client auth REQUIRE, welcomes a worker whose certificate the CA signed', async () => {
    const worker = connectWorker(controller.grpcPort, {
      credentials: grpc.credentials.createSsl(pem('ca.pem'), pem('client.key'), pem('client.pem')),
    });
    worker.hello();
    const welcome = await worker.welcome();
    expect(welcome.workerGroupId).toBe('default');
  });

  it('with client auth REQUIRE, a worker without a certificate, or with an untrusted one, cannot connect', async () => {
    for (const credentials of [
      grpc.credentials.createSsl(pem('ca.pem')),
      grpc.credentials.createSsl(pem('ca.pem'), pem('stranger.key'), pem('stranger.pem')),
    ]) {
      const worker = connectWorker(controller.grpcPort, { credentials });
      worker.hello();
      const status = await worker.closed();
      expect(status.code).toBe(grpc.status.UNAVAILABLE);
      expect(worker.frames).toEqual([]);
    }
  });

  it('a plaintext client cannot talk to the TLS endpoint', async () => {
    const worker = connectWorker(controller.grpcPort);
    worker.hello();
    const status = await worker.closed();
    expect(status.code).toBe(grpc.status.UNAVAILABLE);
    expect(worker.frames).toEqual([]);
  });

  it('refuses to start when a TLS file cannot be read, naming the variable, without a stack trace', async () => {
    const missing = join(dir, 'missing.pem');
    const { exited, output } = spawnController({
      LANNER_HTTP_PORT: String(await freePort()),
      LANNER_GRPC_TLS_CERT: missing,
      LANNER_GRPC_TLS_KEY: join(dir, 'server.key'),
    });
    expect(await exited).toBe(78);
    expect(output()).toContain(`LANNER_GRPC_TLS_CERT: cannot read ${missing} (it does not exist)`);
    expect(output()).not.toMatch(/\n\s+at /);
  });
});

describe('worker sessions: adoption after a dropped stream', () => {
  let controller: ControllerProcess;

  beforeAll(async () => {
    controller = await startController({
      LANNER_ALLOW_ANONYMOUS_WORKERS: 'true',
      LANNER_STREAM_RECYCLE_AGE_S: '0',
      LANNER_LEDGER_RECONCILE_INTERVAL_MS: String(RECONCILE_MS),
    });
  }, 120_000);

  /** A welcomed worker that took one job of the queue and started it (the controller relayed the start). */
  async function workerRunningJob(
    onQueue: string,
    accessToken?: string,
  ): Promise<{ worker: SpecWorker; welcome: Welcome; taskRunId: string }> {
    const worker = connectWorker(controller.grpcPort, accessToken === undefined ? {} : { accessToken });
    worker.hello();
    const welcome = await worker.welcome();
    worker.credit(1);
    const { taskRunId } = await publishJob(onQueue);
    const job = await eventually('the job', () => worker.jobs().find((candidate) => candidate.taskRunId === taskRunId));
    worker.start(job);
    await eventually('the start relayed', () => eventsFor('task-run.started', taskRunId)[0]);
    return { worker, welcome, taskRunId };
  }

  function errorFrames(worker: SpecWorker): { code: ErrorCode; message: string; fatal: boolean }[] {
    return worker.frames.flatMap((frame) => (frame.frame?.$case === 'error' ? [frame.frame.value] : []));
  }

  function killFrames(worker: SpecWorker): { taskRunId: string; attempt: number; reason: string }[] {
    return worker.frames.flatMap((frame) => (frame.frame?.$case === 'kill' ? [frame.frame.value] : []));
  }

  it('adopts the running job of a worker with a token that reconnects within the grace period: no worker-lost event, and its result is recorded', async () => {
    const credentials = await register(controller.grpcPort, tokenOf(groupId));
    const { worker: dropped, welcome, taskRunId } = await workerRunningJob(queueId, credentials.accessToken);
    dropped.close(); // the network drops; the task keeps running on the worker

    const worker = connectWorker(controller.grpcPort, {
      accessToken: credentials.accessToken,
      runningJobs: [...dropped.running.values()],
    });
    worker.hello();
    expect((await worker.welcome()).workerId).toBe(credentials.workerId);

    // Past the grace period of the dropped stream: the job is still the worker's, and nobody reported it lost.
    expect(await graceOver(controller, credentials.workerId)).toEqual(expect.objectContaining({ heldJobs: 1, reportedLost: 0 }));
    expect(eventsFor('task-run.worker-lost', taskRunId)).toEqual([]);
    expect(await repositories.runningJobs.get(taskRunId, 1)).toEqual(
      expect.objectContaining({ workerId: credentials.workerId, controllerInstanceId: welcome.controllerId }),
    );
    expect(errorFrames(worker)).toEqual([]);
    expect(killFrames(worker)).toEqual([]);

    await finishesNeverReportedLost(worker, taskRunId);
    expect(errorFrames(worker)).toEqual([]);
  }, 90_000);

  it('adopts on another controller: the job moves to it, and the controller of the dropped stream never reports it lost', async () => {
    const other = await startController({ LANNER_ALLOW_ANONYMOUS_WORKERS: 'true', LANNER_STREAM_RECYCLE_AGE_S: '0' });
    const credentials = await register(controller.grpcPort, tokenOf(groupId));
    const { worker: dropped, welcome: first, taskRunId } = await workerRunningJob(queueId, credentials.accessToken);
    dropped.close();

    const worker = connectWorker(other.grpcPort, {
      accessToken: credentials.accessToken,
      runningJobs: [...dropped.running.values()],
    });
    worker.hello();
    const second = await worker.welcome();
    expect(second.controllerId).not.toBe(first.controllerId);
    expect(await repositories.runningJobs.get(taskRunId, 1)).toEqual(
      expect.objectContaining({ workerId: credentials.workerId, controllerInstanceId: second.controllerId }),
    );

    expect(await graceOver(controller, credentials.workerId)).toEqual(expect.objectContaining({ heldJobs: 1, reportedLost: 0 }));
    expect(eventsFor('task-run.worker-lost', taskRunId)).toEqual([]);
    expect(await repositories.runningJobs.get(taskRunId, 1)).toEqual(
      expect.objectContaining({ controllerInstanceId: second.controllerId }),
    );

    await finishesNeverReportedLost(worker, taskRunId);
  }, 150_000);

  it('adopts the running job of an anonymous worker (a new worker id per stream) once its dropped stream is gone: no worker-lost event', async () => {
    const { worker: dropped, welcome: first, taskRunId } = await workerRunningJob(anonymousQueueId);
    dropped.close();

    const worker = connectWorker(controller.grpcPort, { runningJobs: [...dropped.running.values()] });
    worker.hello();
    const second = await worker.welcome();
    expect(second.workerId).not.toBe(first.workerId);

    expect(await graceOver(controller, first.workerId)).toEqual(expect.objectContaining({ heldJobs: 1, reportedLost: 0 }));
    expect(eventsFor('task-run.worker-lost', taskRunId)).toEqual([]);
    expect(await repositories.runningJobs.get(taskRunId, 1)).toEqual(
      expect.objectContaining({ workerId: second.workerId, controllerInstanceId: second.controllerId }),
    );
    expect(killFrames(worker)).toEqual([]);

    worker.succeed({ taskRunId, attempt: 1 });
    await eventually('the result', () => eventsFor('task-run.result', taskRunId)[0]);
    expect(eventsFor('task-run.worker-lost', taskRunId)).toEqual([]);
  }, 90_000);

  it('reports the job of a dropped stream lost once after the grace period; a later reconnect listing it is told UNKNOWN_JOB and the job is killed', async () => {
    const credentials = await register(controller.grpcPort, tokenOf(groupId));
    const { worker: dropped, taskRunId } = await workerRunningJob(queueId, credentials.accessToken);
    const droppedAt = Date.now();
    dropped.close();

    const lost = await eventually(
      'the job reported lost',
      () => eventsFor('task-run.worker-lost', taskRunId)[0],
      ADOPTION_GRACE_MS + WAIT_MS,
    );
    expect(Date.now() - droppedAt).toBeGreaterThanOrEqual(ADOPTION_GRACE_MS);
    expect(lost.payload).toEqual(expect.objectContaining({ taskRunId, attempt: 1, workerId: credentials.workerId }));
    expect(await repositories.runningJobs.get(taskRunId, 1)).toBeNull();

    // Too late: the executor may already run it again, so this worker must stop it rather than hold it.
    const late = connectWorker(controller.grpcPort, {
      accessToken: credentials.accessToken,
      runningJobs: [...dropped.running.values()],
    });
    late.hello();
    await late.welcome();
    const kill = await eventually('a Kill frame', () => killFrames(late)[0]);
    expect(kill).toEqual(expect.objectContaining({ taskRunId, attempt: 1 }));
    expect(kill.reason).toContain('reported lost');
    expect(errorFrames(late)).toEqual([
      expect.objectContaining({
        code: ErrorCode.UNKNOWN_JOB,
        fatal: false,
        message: expect.stringContaining(jobMessageId(taskRunId, 1)),
      }),
    ]);
    expect(await repositories.runningJobs.get(taskRunId, 1)).toBeNull();
    await pause(SETTLE_MS);
    expect(eventsFor('task-run.worker-lost', taskRunId)).toHaveLength(1);
  }, 90_000);

  it('reports the job of a dropped stream lost at once when its worker connects again without listing it (it restarted): not after the grace', async () => {
    const credentials = await register(controller.grpcPort, tokenOf(groupId));
    const { worker: dropped, taskRunId } = await workerRunningJob(queueId, credentials.accessToken);
    dropped.close(); // killed -9: the worker process and its task are gone

    // Started again, it runs nothing: its Hello lists no job.
    const restarted = connectWorker(controller.grpcPort, { accessToken: credentials.accessToken, runningJobs: [] });
    restarted.hello();
    expect((await restarted.welcome()).workerId).toBe(credentials.workerId);

    const lost = await eventually('the job reported lost', () => eventsFor('task-run.worker-lost', taskRunId)[0]);
    expect(lost.payload).toEqual(expect.objectContaining({ taskRunId, attempt: 1, workerId: credentials.workerId }));
    // Reported at the Hello, for that reason, not when the grace ran out.
    expect((lost.payload as { reason: string }).reason).toContain('connected again without listing it as running');
    expect(await repositories.runningJobs.get(taskRunId, 1)).toBeNull();
    expect(await graceOver(controller, credentials.workerId)).toEqual(expect.objectContaining({ heldJobs: 1, reportedLost: 1 }));
    await pause(SETTLE_MS);
    expect(eventsFor('task-run.worker-lost', taskRunId)).toHaveLength(1);
    expect(killFrames(restarted)).toEqual([]);
    restarted.close();
  }, 90_000);

  it('sends a redelivered job whose worker here is gone to another worker, which holds it from then on: never reported lost', async () => {
    const first = await register(controller.grpcPort, tokenOf(groupId));
    const { worker: dropped, welcome, taskRunId } = await workerRunningJob(queueId, first.accessToken);
    const droppedAt = Date.now();
    dropped.close(); // gone for good: it never reconnects
    await eventually('the dropped stream out of the registry', async () =>
      (await repositories.connectedWorkers.listLive(new Date(Date.now() - 15_000))).some((row) => row.workerId === first.workerId)
        ? undefined
        : true,
    );

    const second = await register(controller.grpcPort, tokenOf(groupId));
    const worker = connectWorker(controller.grpcPort, { accessToken: second.accessToken });
    worker.hello();
    await worker.welcome();
    worker.credit(1);
    await redeliverJob(queueId, taskRunId);
    const job = await eventually('the redelivered job', () =>
      worker.jobs().find((candidate) => candidate.taskRunId === taskRunId),
    );
    expect(await repositories.runningJobs.get(taskRunId, 1)).toEqual(
      expect.objectContaining({ workerId: second.workerId, controllerInstanceId: welcome.controllerId }),
    );
    worker.start(job);

    // Past the dropped stream's grace period and the quiet time of the ledger reconciler's
    // lost-report retry (half the grace again, then a pass; at most 1 s after the grace): the job is the second worker's, and nobody reported it lost.
    expect(await graceOver(controller, first.workerId)).toEqual(expect.objectContaining({ heldJobs: 1, reportedLost: 0 }));
    await pause(Math.max(0, droppedAt + unheldRowQuietMs(ADOPTION_GRACE_MS) + RECONCILE_MS - Date.now()));
    expect(eventsFor('task-run.worker-lost', taskRunId)).toEqual([]);
    expect(await repositories.runningJobs.get(taskRunId, 1)).toEqual(expect.objectContaining({ workerId: second.workerId }));

    await finishesNeverReportedLost(worker, taskRunId);
  }, 120_000);

  /** One job finished (its result relayed), another's worker dropped for good and reported lost after the grace period. */
  async function finishedAndLostJobs(): Promise<{ finisher: SpecWorker; finished: string; dropped: SpecWorker; lost: string }> {
    const { worker: finisher, taskRunId: finished } = await workerRunningJob(
      queueId,
      (await register(controller.grpcPort, tokenOf(groupId))).accessToken,
    );
    finisher.succeed({ taskRunId: finished, attempt: 1 });
    await eventually('the result', () => eventsFor('task-run.result', finished)[0]);
    await eventually('the row removed', async () =>
      (await repositories.runningJobs.get(finished, 1)) === null ? true : undefined,
    );
    const { worker: dropped, taskRunId: lost } = await workerRunningJob(
      queueId,
      (await register(controller.grpcPort, tokenOf(groupId))).accessToken,
    );
    dropped.close();
    await eventually('the job reported lost', () => eventsFor('task-run.worker-lost', lost)[0], ADOPTION_GRACE_MS + WAIT_MS);
    return { finisher, finished, dropped, lost };
  }

  /**
   * Kafka delivers both jobs again (their partition moved before their offsets were committed) to a
   * worker with room for both: neither is sent and both are logged as dropped, and a job published
   * after them is the only one the worker gets.
   */
  async function neitherRedeliveryIsSent(finished: string, lost: string): Promise<void> {
    const worker = connectWorker(controller.grpcPort, {
      accessToken: (await register(controller.grpcPort, tokenOf(groupId))).accessToken,
    });
    worker.hello();
    await worker.welcome();
    worker.credit(2);
    await redeliverJob(queueId, finished);
    await redeliverJob(queueId, lost);
    const notSent = (taskRunId: string) =>
      controller
        .output()
        .split('\n')
        .some((line) => line.includes('"job of an attempt that already ended: not sent"') && line.includes(taskRunId));
    await eventually('both redeliveries dropped', () => (notSent(finished) && notSent(lost) ? true : undefined));

    const { taskRunId: fresh } = await publishJob(queueId);
    await eventually('a fresh job', () => worker.jobs().find((candidate) => candidate.taskRunId === fresh));
    expect(worker.jobs().map((job) => job.taskRunId)).toEqual([fresh]);
    expect(await repositories.runningJobs.get(finished, 1)).toBeNull();
    expect(await repositories.runningJobs.get(lost, 1)).toBeNull();
    expect(eventsFor('task-run.worker-lost', lost)).toHaveLength(1);
  }

  it('never sends a late redelivery of a job the executor has ended, whether its result came or its worker was reported lost', async () => {
    const { finished, lost } = await finishedAndLostJobs();
    // The executor records both attempts as ended: the lost one put back on its queue as attempt 2.
    await storeEndedAttempts([
      { executionId: executionIdOf(finished), taskRunId: finished, state: 'SUCCESS' },
      { executionId: executionIdOf(lost), taskRunId: lost, state: 'RESUBMITTED' },
    ]);
    await neitherRedeliveryIsSent(finished, lost);
  }, 120_000);

  it('never sends a redelivery of a finished or a lost job in the moment before the executor has recorded its end', async () => {
    // Nothing stores either attempt: this spec plays the executor, and is slow on purpose.
    const { finisher, finished, dropped, lost } = await finishedAndLostJobs();
    await neitherRedeliveryIsSent(finished, lost);
    expect(finisher.jobs().map((job) => job.taskRunId)).toEqual([finished]);
    expect(dropped.jobs().map((job) => job.taskRunId)).toEqual([lost]);
  }, 90_000);

  it('never lets a worker with a token adopt the job of another worker: it is told UNKNOWN_JOB, and the holder keeps the job', async () => {
    const holderCredentials = await register(controller.grpcPort, tokenOf(groupId));
    const { worker: holder, taskRunId } = await workerRunningJob(queueId, holderCredentials.accessToken);

    const otherCredentials = await register(controller.grpcPort, tokenOf(groupId));
    expect(otherCredentials.workerId).not.toBe(holderCredentials.workerId);
    const claimer = connectWorker(controller.grpcPort, {
      accessToken: otherCredentials.accessToken,
      runningJobs: [{ taskRunId, attempt: 1 }],
    });
    claimer.hello();
    await claimer.welcome();
    const kill = await eventually('a Kill frame to the claimer', () => killFrames(claimer)[0]);
    expect(kill.reason).toContain('recorded for another worker');
    expect(errorFrames(claimer)).toEqual([expect.objectContaining({ code: ErrorCode.UNKNOWN_JOB })]);
    expect(await repositories.runningJobs.get(taskRunId, 1)).toEqual(
      expect.objectContaining({ workerId: holderCredentials.workerId }),
    );

    holder.succeed({ taskRunId, attempt: 1 });
    const result = await eventually("the holder's result", () => eventsFor('task-run.result', taskRunId)[0]);
    expect(result.payload).toEqual(expect.objectContaining({ taskRunId, attempt: 1 }));
    expect(killFrames(holder)).toEqual([]);
    expect(errorFrames(holder)).toEqual([]);
  }, 60_000);

  it('never lets an anonymous worker adopt a job whose stream is still connected: it is told UNKNOWN_JOB, and the holder keeps the job', async () => {
    const { worker: holder, welcome, taskRunId } = await workerRunningJob(anonymousQueueId);

    const claimer = connectWorker(controller.grpcPort, { runningJobs: [{ taskRunId, attempt: 1 }] });
    claimer.hello();
    await claimer.welcome();
    const kill = await eventually('a Kill frame to the claimer', () => killFrames(claimer)[0]);
    expect(kill.reason).toContain('still connected');
    expect(errorFrames(claimer)).toEqual([expect.objectContaining({ code: ErrorCode.UNKNOWN_JOB })]);
    expect(await repositories.runningJobs.get(taskRunId, 1)).toEqual(expect.objectContaining({ workerId: welcome.workerId }));

    holder.succeed({ taskRunId, attempt: 1 });
    await eventually("the holder's result", () => eventsFor('task-run.result', taskRunId)[0]);
    expect(killFrames(holder)).toEqual([]);
    expect(eventsFor('task-run.worker-lost', taskRunId)).toEqual([]);
  }, 60_000);
});
