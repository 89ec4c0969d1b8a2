import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';
import {
  auditEntryCodec,
  encodeQueueMessage,
  type EncodedQueueMessage,
  logBatchCodec,
  type LogBatchMessage,
  metricBatchCodec,
  QueueTopics,
} from '@lanner/frames';
import { createKafkaQueue, parseKafkaBrokers, type QueuePort } from '@lanner/queue';
import { applyMigrations, openRepositories, type Repositories } from '@lanner/repository';
import { createProcessLogger, loadRoleConfig, RuntimeModule, serverRoleSettings } from '@lanner/runtime';
import { eventually, requiredEnv } from '@lanner/testing';
import { IndexerConsumer, IndexerRoleModule } from './index';

// The indexer role in-process against the real Kafka and PostgreSQL of the dev
// services, on a database of its own and topics under a prefix of this run.

const TENANT = 'main';
const run = randomBytes(4).toString('hex');
const prefix = `test-${run}.`;
const databaseName = `lanner_indexer_spec_${run}`;
let serverUrl: string;
let repositories: Repositories;
let queue: QueuePort;
let app: INestApplicationContext;

function logBatch(executionId: string, messages: string[]): LogBatchMessage {
  return {
    schemaVersion: 1,
    messageId: randomUUID(),
    type: 'log.batch',
    occurredAt: new Date().toISOString(),
    payload: {
      tenantId: TENANT,
      executionId,
      entries: messages.map((message, index) => ({
        taskRunId: 'tr-1',
        attempt: 1,
        level: index === 0 ? 'INFO' : 'WARN',
        timestamp: new Date(Date.parse('2026-11-30T02:00:00.000Z') + index).toISOString(),
        message,
      })),
    },
  };
}

async function publishLogs(batch: LogBatchMessage): Promise<void> {
  await queue.publish(`${prefix}${QueueTopics.logs}`, [encodeQueueMessage(logBatchCodec, batch)]);
}

beforeAll(async () => {
  serverUrl = requiredEnv('DATABASE_URL');
  const brokers = requiredEnv('KAFKA_BROKERS');
  const config = loadRoleConfig('indexer', {
    DATABASE_URL: serverUrl,
    KAFKA_BROKERS: brokers,
    LANNER_KAFKA_CLIENT_ID: `indexer-spec-${run}`,
    LANNER_LOG_LEVEL: 'error',
  });
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${databaseName}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  await applyMigrations(url.toString());
  repositories = await openRepositories(url.toString());
  queue = createKafkaQueue({ brokers: parseKafkaBrokers(brokers), clientId: `indexer-spec-client-${run}` });

  const settings = serverRoleSettings({ ...config, databaseUrl: url.toString() });
  @Module({
    imports: [
      RuntimeModule.forRoot(config, createProcessLogger('indexer', config.logLevel)),
      IndexerRoleModule.forRoot(settings, { topicPrefix: prefix, groupId: `indexer-spec-${run}` }),
    ],
  })
  class IndexerSpecModule {}
  app = await NestFactory.createApplicationContext(IndexerSpecModule, { logger: false, abortOnError: false });
  await app.init();
  await app.get(IndexerConsumer).started;
}, 120_000);

afterAll(async () => {
  await app?.close();
  await queue
    ?.deleteTopics([`${prefix}${QueueTopics.logs}`, `${prefix}${QueueTopics.metrics}`, `${prefix}${QueueTopics.audit}`])
    .catch(() => undefined);
  await queue?.close();
  await repositories?.close();
  const dropper = new Client({ connectionString: serverUrl });
  await dropper.connect();
  await dropper.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  await dropper.end();
}, 60_000);

it('writes the lines of a log.batch once, however often the batch is delivered, past an unreadable message', async () => {
  const executionId = randomUUID();
  // A record no schema accepts must be skipped, not retried forever in front of the good ones.
  await queue.publish(`${prefix}${QueueTopics.logs}`, [{ key: executionId, value: Buffer.from('{"type":"log.batch"}') }]);
  const batch = logBatch(executionId, ['starting', 'twice', 'twice']);
  // A line a task really printed twice in the same millisecond is kept twice.
  batch.payload.entries[2].timestamp = batch.payload.entries[1].timestamp;
  await publishLogs(batch);
  await publishLogs(batch);
  const marker = logBatch(executionId, ['after the redelivery']);
  marker.payload.entries[0].timestamp = '2026-11-30T03:00:00.000Z';
  await publishLogs(marker);

  const lines = await eventually('the marker line', async () => {
    const stored = await repositories.logs.list(TENANT, executionId);
    return stored.some((line) => line.message === 'after the redelivery') ? stored : undefined;
  });
  expect(lines.map((line) => line.message)).toEqual(['starting', 'twice', 'twice', 'after the redelivery']);
  expect(lines[1]).toMatchObject({ taskRunId: 'tr-1', attempt: 1, level: 'WARN' });
  expect((await repositories.logs.list(TENANT, executionId, { minLevel: 'WARN' })).map((line) => line.message)).toEqual([
    'twice',
    'twice',
  ]);
});

it('writes the points of a metric.batch', async () => {
  const executionId = randomUUID();
  await queue.publish(`${prefix}${QueueTopics.metrics}`, [
    encodeQueueMessage(metricBatchCodec, {
      schemaVersion: 1,
      messageId: randomUUID(),
      type: 'metric.batch',
      occurredAt: new Date().toISOString(),
      payload: {
        tenantId: TENANT,
        executionId,
        metrics: [
          {
            taskRunId: 'tr-1',
            attempt: 1,
            name: 'rows',
            type: 'COUNTER',
            value: 42,
            tags: { table: 'orders' },
            timestamp: new Date().toISOString(),
          },
        ],
      },
    }),
  ]);
  const points = await eventually('the metric', async () => {
    const stored = await repositories.metrics.listForExecution(TENANT, executionId);
    return stored.length > 0 ? stored : undefined;
  });
  expect(points).toEqual([
    expect.objectContaining({ name: 'rows', type: 'COUNTER', value: 42, tags: { table: 'orders' }, taskRunId: 'tr-1' }),
  ]);
});

it('writes an audit.entry once by its message id, however often it is delivered', async () => {
  const namespace = `spec.audit.${run}`;
  const entry = (id: string, action: string) =>
    encodeQueueMessage(auditEntryCodec, {
      schemaVersion: 1,
      messageId: id,
      type: 'audit.entry',
      occurredAt: new Date().toISOString(),
      correlationId: 'corr-audit',
      payload: {
        tenantId: TENANT,
        action,
        resourceType: 'flow',
        resourceId: `${namespace}/hello`,
        namespace,
        actor: { type: 'api-token', id: 'token-1', name: 'ci' },
        clientIp: '10.0.0.7',
        userAgent: 'spec-agent',
        outcome: 'success',
        status: 200,
      },
    });
  const first = randomUUID();
  await queue.publish(`${prefix}${QueueTopics.audit}`, [entry(first, 'flow.update')]);
  await queue.publish(`${prefix}${QueueTopics.audit}`, [entry(first, 'flow.update')]);
  await queue.publish(`${prefix}${QueueTopics.audit}`, [entry(randomUUID(), 'flow.delete')]);

  const page = await eventually('both audit entries', async () => {
    const found = await repositories.auditLogs.search({ tenantId: TENANT }, { namespace, page: 1, size: 10 });
    return found.results.some((row) => row.action === 'flow.delete') ? found : undefined;
  });
  expect(page.total).toBe(2);
  expect(page.results.find((row) => row.id === first)).toMatchObject({
    tenantId: TENANT,
    action: 'flow.update',
    resourceType: 'flow',
    resourceId: `${namespace}/hello`,
    actor: { type: 'api-token', id: 'token-1', name: 'ci' },
    clientIp: '10.0.0.7',
    userAgent: 'spec-agent',
    outcome: 'success',
    status: 200,
    correlationId: 'corr-audit',
  });
});

it('stores an audit entry whose path text PostgreSQL cannot hold, or whose user agent is huge, bounded', async () => {
  const id = randomUUID();
  await queue.publish(`${prefix}${QueueTopics.audit}`, [
    encodeQueueMessage(auditEntryCodec, {
      schemaVersion: 1,
      messageId: id,
      type: 'audit.entry',
      occurredAt: new Date().toISOString(),
      payload: {
        tenantId: `hostile\u0000${run}`,
        action: 'flow.delete',
        resourceType: 'flow',
        resourceId: 'a\u0000b/\ud800',
        namespace: null,
        actor: { type: 'anonymous', id: null, name: null },
        clientIp: null,
        userAgent: 'x'.repeat(10_000),
        outcome: 'denied',
        status: 401,
      },
    }),
  ]);
  const page = await eventually('the hostile entry', async () => {
    const found = await repositories.auditLogs.search({ tenantId: `hostile\ufffd${run}` }, { page: 1, size: 10 });
    return found.total > 0 ? found : undefined;
  });
  expect(page.results[0]).toMatchObject({ id, resourceId: 'a\ufffdb/\ufffd', outcome: 'denied', status: 401 });
  expect(page.results[0].userAgent).toHaveLength(512);
});

function auditEntry(id: string, namespace: string, action: string) {
  return encodeQueueMessage(auditEntryCodec, {
    schemaVersion: 1,
    messageId: id,
    type: 'audit.entry',
    occurredAt: new Date().toISOString(),
    payload: {
      tenantId: TENANT,
      action,
      resourceType: 'execution',
      resourceId: `${namespace}/hello`,
      namespace,
      actor: { type: 'api-token', id: 'token-1', name: 'ci' },
      clientIp: null,
      userAgent: null,
      outcome: 'success',
      status: 200,
    },
  });
}

/** The INSERTs the indexer sends to PostgreSQL while `during` runs, by table (the real statements, passed on unchanged). */
async function insertsDuring(during: () => Promise<void>): Promise<Map<string, number>> {
  const inserts = new Map<string, number>();
  const query = jest.spyOn(Client.prototype, 'query');
  try {
    await during();
  } finally {
    for (const [statement] of query.mock.calls as unknown[][]) {
      const text = typeof statement === 'string' ? statement : (statement as { text?: string } | undefined)?.text;
      const table = /^\s*INSERT INTO "?(?:public"?\."?)?(\w+)/i.exec(text ?? '')?.[1];
      if (table !== undefined) inserts.set(table, (inserts.get(table) ?? 0) + 1);
    }
    query.mockRestore();
  }
  return inserts;
}

async function lagOf(topic: string): Promise<number | undefined> {
  return (await queue.consumerLag(`indexer-spec-${run}`, [topic])).get(topic);
}

async function storedLines(executionIds: readonly string[]): Promise<number> {
  const counts = await Promise.all(executionIds.map((id) => repositories.logs.list(TENANT, id)));
  return counts.reduce((sum, lines) => sum + lines.length, 0);
}

/**
 * Publishes `logs` and `audit` again, with one more audit entry as a marker, and shows that only
 * the marker is stored: every other line and entry is there once (each log batch holds two lines).
 */
async function expectRedeliveryAddsNothing(
  namespace: string,
  executionIds: readonly string[],
  logs: EncodedQueueMessage[],
  audit: EncodedQueueMessage[],
): Promise<void> {
  const marker = randomUUID();
  await queue.publish(`${prefix}${QueueTopics.logs}`, logs);
  await queue.publish(`${prefix}${QueueTopics.audit}`, [...audit, auditEntry(marker, namespace, 'flow.delete')]);
  await eventually('the marker entry', async () => {
    const found = await repositories.auditLogs.search(
      { tenantId: TENANT },
      { namespace, action: 'flow.delete', page: 1, size: 1 },
    );
    return found.total === 1 ? true : undefined;
  });
  // The log topic has three partitions: wait until the indexer's group has read every one of them to the end.
  await eventually('the log topic read to its end', async () =>
    (await lagOf(`${prefix}${QueueTopics.logs}`)) === 0 ? true : undefined,
  );
  expect((await repositories.auditLogs.search({ tenantId: TENANT }, { namespace, page: 1, size: 1 })).total).toBe(
    audit.length + 1,
  );
  expect(await storedLines(executionIds)).toBe(2 * logs.length);
}

it('writes a backlog of log and audit messages in fewer INSERTs than messages, and its redelivery adds nothing', async () => {
  const namespace = `spec.backlog.${run}`;
  const executionIds = Array.from({ length: 40 }, () => randomUUID());
  const logs = executionIds.map((id) => encodeQueueMessage(logBatchCodec, logBatch(id, ['one', 'two'])));
  const audit = executionIds.map((_, index) =>
    auditEntry(randomUUID(), namespace, index === 0 ? 'flow.update' : 'execution.create'),
  );
  const inserts = await insertsDuring(async () => {
    // Published together, so they wait in their partitions as a backlog does.
    await Promise.all([
      queue.publish(`${prefix}${QueueTopics.logs}`, logs),
      queue.publish(`${prefix}${QueueTopics.audit}`, audit),
    ]);
    await eventually('every line and entry', async () => {
      const entries = await repositories.auditLogs.search({ tenantId: TENANT }, { namespace, page: 1, size: 1 });
      return entries.total === audit.length && (await storedLines(executionIds)) === 2 * logs.length ? true : undefined;
    });
  });
  expect(inserts.get('logs')).toBeLessThan(logs.length);
  expect(inserts.get('audit_logs')).toBeLessThan(audit.length);
  const first = await repositories.logs.list(TENANT, executionIds[0]);
  expect(first.map((line) => line.message)).toEqual(['one', 'two']);

  // Redelivered (a member died before committing): nothing more is stored.
  await expectRedeliveryAddsNothing(namespace, executionIds, logs, audit);
});

it('writes the log and audit messages of many executions, published across every partition a few ms apart, in one INSERT per table', async () => {
  const namespace = `spec.window.${run}`;
  const executionIds = Array.from({ length: 12 }, () => randomUUID());
  const logs = executionIds.map((id) => encodeQueueMessage(logBatchCodec, logBatch(id, ['started', 'ended'])));
  const audit = executionIds.map(() => auditEntry(randomUUID(), namespace, 'execution.create'));
  const everything = async () => {
    const entries = await repositories.auditLogs.search({ tenantId: TENANT }, { namespace, page: 1, size: 1 });
    return entries.total === audit.length && (await storedLines(executionIds)) === 2 * logs.length ? true : undefined;
  };
  const inserts = await insertsDuring(async () => {
    // As executions end one after the other: each its own publish, their keys spread over the partitions.
    const publishes: Promise<void>[] = [];
    for (let index = 0; index < executionIds.length; index++) {
      publishes.push(queue.publish(`${prefix}${QueueTopics.logs}`, [logs[index]]));
      publishes.push(queue.publish(`${prefix}${QueueTopics.audit}`, [audit[index]]));
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    await Promise.all(publishes);
    await eventually('every line and entry', everything);
  });
  // One shared write, or two when the wait of a fetch ended while they were being published (three when a
  // loaded machine spreads the publishes over more than one wait); one a partition batch or more without it.
  expect(inserts.get('logs')).toBeLessThanOrEqual(3);
  expect(inserts.get('audit_logs')).toBeLessThanOrEqual(3);

  // Redelivered (a member died before committing): nothing more is stored.
  await expectRedeliveryAddsNothing(namespace, executionIds, logs, audit);
});

it('stores the good messages of a batch around an unreadable one and one the database refuses, which is parked', async () => {
  const [before, refused, after] = [randomUUID(), randomUUID(), randomUUID()];
  // Readable, but PostgreSQL cannot store a NUL in text: its rows are refused for good.
  const poison = logBatch(refused, ['never stored']);
  poison.payload.entries[0].taskRunId = 'tr\u0000nul';
  // One key: one partition, so the four come in one batch (or in consecutive ones).
  const key = before;
  // Executions of their own, most on the other partitions: their batches share the write the refused row fails.
  const others = Array.from({ length: 6 }, () => randomUUID());
  await queue.publish(`${prefix}${QueueTopics.logs}`, [
    { ...encodeQueueMessage(logBatchCodec, logBatch(before, ['before'])), key },
    { key, value: Buffer.from('{"type":"log.batch"}') },
    { ...encodeQueueMessage(logBatchCodec, poison), key },
    { ...encodeQueueMessage(logBatchCodec, logBatch(after, ['after'])), key },
    ...others.map((id) => encodeQueueMessage(logBatchCodec, logBatch(id, ['beside']))),
  ]);
  await eventually('the lines around the bad messages', async () =>
    (await storedLines([before, after, ...others])) === 2 + others.length ? true : undefined,
  );
  expect((await repositories.logs.list(TENANT, after)).map((line) => line.message)).toEqual(['after']);
  const parked = await eventually('the refused batch parked', async () => {
    const letters = await repositories.deadLetters.list({ limit: 10, offset: 0, topic: `${prefix}${QueueTopics.logs}` });
    return letters.results.find((letter) => letter.executionId === refused);
  });
  expect(parked).toMatchObject({ consumerGroup: `indexer-spec-${run}`, tenantId: TENANT });
  expect(await repositories.logs.list(TENANT, refused)).toEqual([]);
  // Parked alone: no other message of the write it failed.
  const letters = await repositories.deadLetters.list({ limit: 10, offset: 0, topic: `${prefix}${QueueTopics.logs}` });
  expect(letters.results.map((letter) => letter.executionId)).toEqual([refused]);
});
