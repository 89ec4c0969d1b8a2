import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  broadcastCodec,
  decodeQueueMessage,
  encodeQueueMessage,
  executorEventCodec,
  jobMessageId,
  QUEUE_SCHEMA_VERSIONS,
  workerJobCodec,
  type ExecutorEvent,
  type WorkerJobMessage,
} from '@lanner/frames';
import type { ExecutionWithTaskRuns, StoredJson } from '@lanner/model';
import { createKafkaQueue, type QueuePort, type QueueSubscription } from '@lanner/queue';
import { Client } from 'pg';
import { applyMigrations, openRepositories, type Repositories } from '@lanner/repository';
import { createProcessLogger, loadRoleConfig, RuntimeModule, serverRoleSettings } from '@lanner/runtime';
import { pause, requiredEnv } from '@lanner/testing';
import { parsedFlow } from './parsed-flow';
import { ExecutorRoleModule, ExecutorService, executorTopics, type ExecutorOptions, type ExecutorTopics } from '../index';

// For the executor's integration specs: the executor in-process with its real
// role module, on a database of its own and topics under a prefix of its own,
// against the real Kafka and PostgreSQL of the dev services. A stand-in plays
// the controllers: it registers connected workers in the live registry as a
// controller does, consumes the jobs of the queues it is told and answers them
// on `lanner.executor` as a controller relays its workers' frames.

export type JobPayload = WorkerJobMessage['payload'];

export interface Answers {
  started(job: JobPayload): Promise<void>;
  result(
    job: JobPayload,
    state: 'SUCCESS' | 'FAILED' | 'KILLED',
    outputs?: Record<string, StoredJson>,
    errorMessage?: string,
  ): Promise<void>;
}

/** How the stand-in answers one job; `undefined` leaves it unanswered (no worker took it). */
export type JobScript = (job: JobPayload, answers: Answers) => Promise<void>;

export interface ReceivedJob {
  readonly queueId: string;
  readonly topic: string;
  readonly job: JobPayload;
}

export interface ExecutorHarness {
  readonly repositories: Repositories;
  /** The harness's own database, for a spec that reads a row as it is stored. */
  readonly databaseUrl: string;
  /** The executor under test (its in-process system worker is `executor.system`). */
  readonly executor: ExecutorService;
  readonly queue: QueuePort;
  readonly topics: ExecutorTopics;
  /** Every job the stand-in took, in order, with the topic it came from. */
  readonly jobs: ReceivedJob[];
  /** Every `broadcast.kill` seen. */
  readonly kills: { executionId: string; taskRunId: string; attempt: number }[];
  /** How the stand-in answers the jobs of a flow (by flow id); the default answers SUCCESS. */
  readonly scripts: Map<string, JobScript>;
  readonly answers: Answers;
  saveFlow(tenantId: string, source: string): Promise<number>;
  /** As the api does after a flow write commits: `broadcast.flows-changed` on the broadcast topic. */
  announceFlowChange(tenantId: string, namespace: string, flowId: string, revision: number): Promise<void>;
  submit(
    tenantId: string,
    namespace: string,
    flowId: string,
    revision: number,
    inputs?: Record<string, StoredJson>,
    /** As the api does outside maintenance mode: `execution.created` carries the row inserted. */
    options?: { readonly carryRow?: boolean },
  ): Promise<string>;
  publishToExecutor(message: ExecutorEvent): Promise<void>;
  eventually(
    tenantId: string,
    executionId: string,
    done: (execution: ExecutionWithTaskRuns) => boolean,
    what: string,
  ): Promise<ExecutionWithTaskRuns>;
  /** Registers a worker as connected through this stand-in controller (refreshed until `disconnectWorker`). */
  connectWorker(worker: { workerId: string; groupId: string; queueIds: string[]; draining?: boolean }): Promise<void>;
  disconnectWorker(workerId: string): Promise<void>;
  /** Starts another executor of the same group (another process would be the same member of the group); `close` stops it. */
  startAnotherExecutor(): Promise<{ close(): Promise<void> }>;
  /** Stops the first executor (the others keep running). */
  stopExecutor(): Promise<void>;
  close(): Promise<void>;
}

export const ended = (execution: ExecutionWithTaskRuns): boolean =>
  ['SUCCESS', 'WARNING', 'FAILED', 'KILLED', 'CANCELLED', 'RETRIED'].includes(execution.state);

export const answerSuccess: JobScript = async (job, reply) => {
  await reply.started(job);
  await reply.result(job, 'SUCCESS', job.taskType.endsWith('Return') ? { value: String(job.taskDefinition['format']) } : {});
};

interface TestDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/** A migrated database of this run's own on the dev services' server, dropped by `drop()`. */
async function createTestDatabase(run: string): Promise<TestDatabase> {
  const serverUrl = requiredEnv('DATABASE_URL');
  const name = `lanner_executor_${run}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  await applyMigrations(url.toString());
  return {
    url: url.toString(),
    async drop() {
      const client = new Client({ connectionString: serverUrl });
      await client.connect();
      try {
        // The name is made here (hex digits and underscores): safe to splice.
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** The `task-run.started` event a stand-in worker would cause for a job. */
export function startedEvent(job: JobPayload): ExecutorEvent {
  return {
    schemaVersion: QUEUE_SCHEMA_VERSIONS['task-run.started'],
    messageId: jobMessageId(job.taskRunId, job.attempt),
    type: 'task-run.started',
    occurredAt: new Date().toISOString(),
    payload: {
      tenantId: job.tenantId,
      executionId: job.executionId,
      taskRunId: job.taskRunId,
      attempt: job.attempt,
      workerQueueId: job.workerQueueId,
      workerId: 'stand-in-worker',
      startedAt: new Date().toISOString(),
    },
  };
}

/** The `task-run.result` event a stand-in worker would cause for a job. */
export function resultEvent(
  job: JobPayload,
  state: 'SUCCESS' | 'FAILED' | 'KILLED',
  outputs: Record<string, StoredJson> = {},
  errorMessage?: string,
): ExecutorEvent {
  return {
    schemaVersion: QUEUE_SCHEMA_VERSIONS['task-run.result'],
    messageId: jobMessageId(job.taskRunId, job.attempt),
    type: 'task-run.result',
    occurredAt: new Date().toISOString(),
    payload: {
      tenantId: job.tenantId,
      executionId: job.executionId,
      taskRunId: job.taskRunId,
      attempt: job.attempt,
      workerQueueId: job.workerQueueId,
      workerId: 'stand-in-worker',
      state,
      outputs,
      ...(errorMessage !== undefined ? { errorMessage } : {}),
      cacheHit: false,
      endedAt: new Date().toISOString(),
    },
  };
}

/**
 * Starts the executor and the stand-in. `jobQueues`: the worker queues whose
 * topics the stand-in consumes (their topics are created first).
 */
export async function startExecutorHarness(options: {
  jobQueues: string[];
  executor?: Partial<ExecutorOptions>;
}): Promise<ExecutorHarness> {
  const brokers = requiredEnv('KAFKA_BROKERS');
  const run = randomBytes(4).toString('hex');
  const topics = executorTopics(`test-${run}.`);
  const controllerInstanceId = `stand-in-controller-${run}`;
  const database = await createTestDatabase(run);
  const repositories = await openRepositories(database.url, { poolSize: 4 });
  await repositories.workerGroups.seedReserved();

  const config = loadRoleConfig('executor', {
    DATABASE_URL: database.url,
    KAFKA_BROKERS: brokers,
    LANNER_KAFKA_CLIENT_ID: `executor-spec-${run}`,
  });
  const logger = createProcessLogger('executor', 'warn');
  const queue = createKafkaQueue({ brokers: config.kafka.brokers, clientId: `executor-spec-stand-in-${run}`, logger });
  const jobTopics = new Map(
    options.jobQueues.flatMap((queueId) => [
      [topics.workerJobs(queueId), queueId],
      [topics.resubmittedJobs(queueId), queueId],
    ]),
  );
  const allTopics = [...new Set([...topics.ensured, ...jobTopics.keys()])];
  await queue.createTopics(allTopics.map((topic) => ({ topic, partitions: 3 })));

  const executorOptions = { timerIntervalMs: 200, groupId: `lanner-executor-spec-${run}`, topics, ...options.executor };
  const startExecutor = async (clientId: string): Promise<INestApplicationContext> => {
    const own = loadRoleConfig('executor', {
      DATABASE_URL: database.url,
      KAFKA_BROKERS: brokers,
      LANNER_KAFKA_CLIENT_ID: clientId,
    });
    @Module({
      imports: [RuntimeModule.forRoot(own, logger), ExecutorRoleModule.forRoot(serverRoleSettings(own), executorOptions)],
    })
    class ExecutorSpecModule {}
    const started: INestApplicationContext = await NestFactory.createApplicationContext(ExecutorSpecModule, {
      logger: false,
      abortOnError: false,
    });
    await started.init();
    await started.get(ExecutorService).whenStarted();
    return started;
  };
  const app = await startExecutor(`executor-spec-${run}`);
  const others: INestApplicationContext[] = [];

  const jobs: ReceivedJob[] = [];
  const kills: ExecutorHarness['kills'] = [];
  const scripts = new Map<string, JobScript>();
  const connected = new Set<string>();

  const publishToExecutor = async (message: ExecutorEvent): Promise<void> => {
    await queue.publish(topics.executor, [encodeQueueMessage(executorEventCodec, message)]);
  };
  const answers: Answers = {
    started: (job) => publishToExecutor(startedEvent(job)),
    result: (job, state, outputs = {}, errorMessage) => publishToExecutor(resultEvent(job, state, outputs, errorMessage)),
  };

  const standIn: QueueSubscription = await queue.subscribe({
    groupId: `stand-in-${run}`,
    topics: [...jobTopics.keys(), topics.broadcast],
    fromBeginning: true,
    handler: async (message) => {
      if (message.topic === topics.broadcast) {
        const broadcast = decodeQueueMessage(broadcastCodec, message.value);
        if (broadcast.type === 'broadcast.kill') kills.push(broadcast.payload);
        return;
      }
      const job = decodeQueueMessage(workerJobCodec, message.value).payload;
      jobs.push({ queueId: jobTopics.get(message.topic) ?? '?', topic: message.topic, job });
      // Answered without holding the partition, as a worker runs its jobs side by side.
      void (scripts.get(job.flowId) ?? answerSuccess)(job, answers).catch(() => undefined);
    },
  });

  // As a controller does: the rows of its connected workers are refreshed well within the staleness limit.
  const refresher = setInterval(() => {
    if (connected.size > 0)
      void repositories.connectedWorkers.touchController(controllerInstanceId, new Date()).catch(() => undefined);
  }, 2000);

  return {
    repositories,
    databaseUrl: database.url,
    executor: app.get(ExecutorService),
    queue,
    topics,
    jobs,
    kills,
    scripts,
    answers,
    async saveFlow(tenantId, source) {
      const flow = parsedFlow(source);
      const record = await repositories.flows.create(tenantId, {
        namespace: flow.namespace,
        flowId: flow.id,
        source,
        definition: JSON.parse(JSON.stringify(flow)) as StoredJson,
      });
      return record.revision;
    },
    async announceFlowChange(tenantId, namespace, flowId, revision) {
      await queue.publish(topics.broadcast, [
        encodeQueueMessage(broadcastCodec, {
          schemaVersion: QUEUE_SCHEMA_VERSIONS['broadcast.flows-changed'],
          messageId: randomUUID(),
          type: 'broadcast.flows-changed',
          occurredAt: new Date().toISOString(),
          payload: { tenantId, namespace, flowId, revision },
        }),
      ]);
    },
    async submit(tenantId, namespace, flowId, revision, inputs = {}, options = {}) {
      // As the API submits: the row in CREATED, then `execution.created` on the executor topic.
      const executionId = randomUUID();
      const record = await repositories.executions.create(tenantId, {
        id: executionId,
        namespace,
        flowId,
        flowRevision: revision,
        state: 'CREATED',
        stateHistories: [{ state: 'CREATED', date: new Date() }],
        inputs,
        labels: {},
      });
      await publishToExecutor({
        schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.created'],
        messageId: `${executionId}:created`,
        type: 'execution.created',
        occurredAt: new Date().toISOString(),
        payload: {
          tenantId,
          executionId,
          namespace,
          flowId,
          flowRevision: revision,
          inputs,
          labels: {},
          ...(options.carryRow === true ? { execution: { ...record, taskRuns: [] } } : {}),
        },
      });
      return executionId;
    },
    publishToExecutor,
    async eventually(tenantId, executionId, done, what) {
      // A deadline that passes fails the test; it is not a timing assertion.
      const deadline = Date.now() + 40_000;
      let execution = await repositories.executions.get(tenantId, executionId);
      while (!done(execution)) {
        if (Date.now() > deadline)
          throw new Error(`execution ${executionId} never ${what}; it is ${execution.state} (version ${execution.version})`);
        await pause(150);
        execution = await repositories.executions.get(tenantId, executionId);
      }
      return execution;
    },
    async connectWorker(worker) {
      const now = new Date();
      await repositories.connectedWorkers.upsert(
        {
          workerId: worker.workerId,
          workerGroupId: worker.groupId,
          workerName: worker.workerId,
          controllerInstanceId,
          registrationTokenId: null,
          slots: 4,
          draining: worker.draining ?? false,
          queueIds: worker.queueIds,
          capacity: {},
          labels: {},
          connectedAt: now,
        },
        now,
      );
      connected.add(worker.workerId);
    },
    async disconnectWorker(workerId) {
      await repositories.connectedWorkers.remove(workerId, controllerInstanceId);
      connected.delete(workerId);
    },
    async startAnotherExecutor() {
      const other = await startExecutor(`executor-spec-${run}-${others.length + 2}`);
      others.push(other);
      return { close: () => other.close() };
    },
    stopExecutor: () => app.close(),
    async close() {
      clearInterval(refresher);
      await standIn.close().catch(() => undefined);
      for (const other of others) await other.close().catch(() => undefined);
      await app.close().catch(() => undefined);
      await queue.deleteTopics(allTopics).catch(() => undefined);
      await queue.close().catch(() => undefined);
      await repositories.close().catch(() => undefined);
      await database.drop();
    },
  };
}
