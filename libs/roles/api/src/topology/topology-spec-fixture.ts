import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { INestApplication, type LoggerService, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';
import { broadcastCodec, type BroadcastMessage, decodeQueueMessage, QueueTopics } from '@lanner/frames';
import { createKafkaQueue, parseKafkaBrokers, type QueuePort, type QueueSubscription } from '@lanner/queue';
import { applyMigrations, openRepositories, type Repositories } from '@lanner/repository';
import { createProcessLogger, loadRoleConfig, RuntimeModule, serverRoleSettings } from '@lanner/runtime';
import { ApiRoleModule } from '../api-role.module';
import type { ApiRoleOptions } from '../api-role.options';
import { requiredEnv } from '../testing/api-spec-fixture';

// For the topology and setup integration specs: the real api role module on a
// free port, on a database of the spec's own on the dev services' PostgreSQL,
// and on their Kafka under a topic prefix of its own. Unlike the shared
// fixture, the api can be started several times on one database (a second
// start with the same setup file) and with a setup file, and what it logs is
// kept for the assertions.

export interface SpecDatabase {
  readonly url: string;
  readonly repositories: Repositories;
  /** Every row of a table, as the database holds it (to prove what is and is not stored). */
  rows(table: string): Promise<Record<string, unknown>[]>;
  drop(): Promise<void>;
}

export async function createSpecDatabase(): Promise<SpecDatabase> {
  const serverUrl = requiredEnv('DATABASE_URL');
  const name = `lanner_topology_spec_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  await applyMigrations(url.toString());
  const repositories = await openRepositories(url.toString());
  return {
    url: url.toString(),
    repositories,
    async rows(table: string) {
      const client = new Client({ connectionString: url.toString() });
      await client.connect();
      try {
        return (await client.query(`SELECT * FROM ${table} ORDER BY id`)).rows;
      } finally {
        await client.end();
      }
    },
    async drop() {
      await repositories.close();
      const dropper = new Client({ connectionString: serverUrl });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}

/** Every line the api logged through Nest's logger, as text. */
export class CapturedLogs implements LoggerService {
  readonly lines: string[] = [];
  log(message: unknown, ...rest: unknown[]) {
    this.keep(message, rest);
  }
  error(message: unknown, ...rest: unknown[]) {
    this.keep(message, rest);
  }
  warn(message: unknown, ...rest: unknown[]) {
    this.keep(message, rest);
  }
  debug(message: unknown, ...rest: unknown[]) {
    this.keep(message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]) {
    this.keep(message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]) {
    this.keep(message, rest);
  }
  private keep(message: unknown, rest: unknown[]) {
    this.lines.push([message, ...rest].map((part) => (typeof part === 'string' ? part : JSON.stringify(part))).join(' '));
  }
}

export interface SpecApi {
  readonly baseUrl: string;
  readonly adminToken: string;
  readonly logs: CapturedLogs;
  close(): Promise<void>;
}

export interface SpecApiOptions {
  readonly database: SpecDatabase;
  readonly topicPrefix: string;
  readonly setupFile?: string;
  /** User login (a signing key) for specs that log users in. */
  readonly users?: ApiRoleOptions['users'];
}

/** Starts the api; rejects with the start's error (after closing what opened) when it refuses to start. */
export async function startSpecApi(options: SpecApiOptions): Promise<SpecApi> {
  const run = randomBytes(4).toString('hex');
  const adminToken = `topology-spec-admin-${randomBytes(16).toString('hex')}`;
  const config = loadRoleConfig('api', {
    DATABASE_URL: options.database.url,
    KAFKA_BROKERS: requiredEnv('KAFKA_BROKERS'),
    LANNER_KAFKA_CLIENT_ID: `topology-spec-${run}`,
    LANNER_ADMIN_TOKEN: adminToken,
    LANNER_HTTP_PORT: '8080',
    LANNER_LOG_LEVEL: 'error',
  });
  const api = ApiRoleModule.forRoot(serverRoleSettings(config), {
    adminToken,
    followPollMs: 60_000,
    topicPrefix: options.topicPrefix,
    ...(options.setupFile === undefined ? {} : { setupFile: options.setupFile }),
    ...(options.users === undefined ? {} : { users: options.users }),
  });
  @Module({ imports: [RuntimeModule.forRoot(config, createProcessLogger('api', config.logLevel)), api] })
  class TopologySpecModule {}
  const logs = new CapturedLogs();
  const app: INestApplication = await NestFactory.create(TopologySpecModule, { logger: logs, abortOnError: false });
  try {
    await app.listen(0, '127.0.0.1');
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  const baseUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { baseUrl, adminToken, logs, close: () => app.close() };
}

/** A Kafka client of the spec's own, to check topics and read `lanner.broadcast` as a controller would. */
export interface SpecKafka {
  readonly queue: QueuePort;
  readonly broadcasts: BroadcastMessage[];
  close(topics: string[]): Promise<void>;
}

export async function connectSpecKafka(topicPrefix: string): Promise<SpecKafka> {
  const run = randomBytes(4).toString('hex');
  const queue = createKafkaQueue({
    brokers: parseKafkaBrokers(requiredEnv('KAFKA_BROKERS')),
    clientId: `topology-spec-client-${run}`,
  });
  const broadcasts: BroadcastMessage[] = [];
  const topic = `${topicPrefix}${QueueTopics.broadcast}`;
  await queue.createTopics([{ topic }]);
  const subscription: QueueSubscription = await queue.subscribe({
    groupId: `topology-spec-controller-${run}`,
    topics: [topic],
    fromBeginning: true,
    handler: async (message) => {
      broadcasts.push(decodeQueueMessage(broadcastCodec, message.value));
    },
  });
  return {
    queue,
    broadcasts,
    async close(topics: string[]) {
      await subscription.close();
      await queue.deleteTopics(topics).catch(() => undefined);
      await queue.close();
    },
  };
}

/** An HTTP call with a token (the admin's by default; null for none). */
export async function call(
  baseUrl: string,
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
  rawBody?: string,
) {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined || rawBody !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are inspected field by field in the assertions
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', json: json as any, text };
}
