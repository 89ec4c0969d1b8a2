import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { INestApplication, Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';
import { createKafkaQueue, parseKafkaBrokers, type QueuePort } from '@lanner/queue';
import { applyMigrations, openRepositories, type Repositories } from '@lanner/repository';
import { createProcessLogger, loadRoleConfig, RuntimeModule, serverRoleSettings } from '@lanner/runtime';
import { eventually, requiredEnv } from '@lanner/testing';
import { ApiRoleModule } from '../api-role.module';
import type { ApiRoleOptions } from '../api-role.options';
import { apiTopics } from '../api-topics';
import { ExecutionUpdatesFeed } from '../executions/execution-updates.feed';

// For the api role's integration specs: the real role module in-process on a
// free port, on a database of its own (created, migrated and dropped here) on
// the dev services' PostgreSQL, and on their Kafka under a topic prefix of this
// run, so that other processes on the broker are neither seen nor disturbed.

// The api role's specs take these from here with the fixture; they live in @lanner/testing.
export { eventually, requiredEnv };

export interface ApiSpecFixture {
  readonly baseUrl: string;
  readonly adminToken: string;
  readonly topicPrefix: string;
  /** The spec's own database, for another role's process started next to the api. */
  readonly databaseUrl: string;
  readonly repositories: Repositories;
  /** A queue client of the spec's own, to publish and consume as the other roles would. */
  readonly queue: QueuePort;
  /** The api's Nest application, to look at one of its providers. */
  readonly app: INestApplication;
  close(): Promise<void>;
}

/** Internal storage for the spec's api (FILE inputs, downloads); none by default. */
export type ApiSpecStorage = Pick<
  ApiRoleOptions,
  'storage' | 'fileInputMaxBytes' | 'storageRetentionDays' | 'storageRetentionSweepMs'
>;

/** `extraModules`: served next to the api role, under its global guard, pipe and filter. */
export async function startApiForSpec(
  options: ApiSpecStorage & { extraModules?: readonly Type[]; users?: ApiRoleOptions['users'] } = {},
): Promise<ApiSpecFixture> {
  const serverUrl = requiredEnv('DATABASE_URL');
  const brokers = requiredEnv('KAFKA_BROKERS');
  const run = randomBytes(4).toString('hex');
  const topicPrefix = `test-${run}.`;
  const adminToken = `api-spec-admin-token-${randomBytes(16).toString('hex')}`;

  const databaseName = `lanner_api_spec_${run}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${databaseName}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  const databaseUrl = url.toString();
  await applyMigrations(databaseUrl);

  const config = loadRoleConfig('api', {
    DATABASE_URL: databaseUrl,
    KAFKA_BROKERS: brokers,
    LANNER_KAFKA_CLIENT_ID: `api-spec-${run}`,
    LANNER_ADMIN_TOKEN: adminToken,
    // Unused: the spec listens on a free port of its own (below).
    LANNER_HTTP_PORT: '8080',
    LANNER_LOG_LEVEL: 'error',
  });
  const logger = createProcessLogger('api', config.logLevel);
  // A long safety-net poll: the specs prove that updates arrive through the topic.
  const api = ApiRoleModule.forRoot(serverRoleSettings(config), {
    adminToken,
    followPollMs: 60_000,
    topicPrefix,
    users: options.users,
    storage: options.storage,
    fileInputMaxBytes: options.fileInputMaxBytes,
    storageRetentionDays: options.storageRetentionDays,
    storageRetentionSweepMs: options.storageRetentionSweepMs,
  });
  @Module({ imports: [RuntimeModule.forRoot(config, logger), api, ...(options.extraModules ?? [])] })
  class ApiSpecModule {}
  const app: INestApplication = await NestFactory.create(ApiSpecModule, { logger: false, abortOnError: false });
  await app.listen(0, '127.0.0.1');
  const baseUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  await app.get(ExecutionUpdatesFeed).started;

  const repositories = await openRepositories(databaseUrl);
  const queue = createKafkaQueue({ brokers: parseKafkaBrokers(brokers), clientId: `api-spec-client-${run}` });
  return {
    baseUrl,
    adminToken,
    topicPrefix,
    databaseUrl,
    repositories,
    queue,
    app,
    async close() {
      await app.close();
      await queue.deleteTopics([...apiTopics(topicPrefix).ensured]).catch(() => undefined);
      await queue.close();
      await repositories.close();
      const dropper = new Client({ connectionString: serverUrl });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
      await dropper.end();
    },
  };
}
