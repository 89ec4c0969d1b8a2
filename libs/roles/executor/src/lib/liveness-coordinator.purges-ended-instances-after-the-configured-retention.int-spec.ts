import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createKafkaQueue, type QueuePort } from '@lanner/queue';
import { applyMigrations, openRepositories, type Repositories } from '@lanner/repository';
import { createProcessLogger, loadRoleConfig, ServiceInstanceIdentity } from '@lanner/runtime';
import { eventually, requiredEnv } from '@lanner/testing';
import { executorOptions, executorTopics } from './executor-options';
import { LivenessCoordinator, livenessSettingsFromConfig } from './liveness-coordinator';

// The retention of ended service-instance rows is the executor's config
// (LANNER_SERVICE_INSTANCE_RETENTION_S): the coordinator, running on its own
// schedule against the real PostgreSQL, deletes the NOT_RUNNING and TERMINATED
// rows that ended longer ago than that, and keeps younger ones and live ones.

const run = randomBytes(4).toString('hex');
const HOUR_MS = 3_600_000;
let serverUrl: string;
let databaseName: string;
let repositories: Repositories;
let queue: QueuePort;

beforeAll(async () => {
  serverUrl = requiredEnv('DATABASE_URL');
  databaseName = `lanner_purge_${run}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${databaseName}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  await applyMigrations(url.toString());
  repositories = await openRepositories(url.toString(), { poolSize: 2 });
  queue = createKafkaQueue({
    brokers: requiredEnv('KAFKA_BROKERS').split(','),
    clientId: `purge-spec-${run}`,
    logger: createProcessLogger('executor', 'warn'),
  });
}, 120_000);

afterAll(async () => {
  await queue?.close();
  await repositories?.close();
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}, 60_000);

it('purges, on its schedule, the ended instances older than LANNER_SERVICE_INSTANCE_RETENTION_S and keeps the others', async () => {
  const config = loadRoleConfig('executor', {
    DATABASE_URL: serverUrl,
    KAFKA_BROKERS: requiredEnv('KAFKA_BROKERS'),
    LANNER_SERVICE_INSTANCE_RETENTION_S: '3600',
  });
  const settings = livenessSettingsFromConfig(config);
  expect(settings.timings?.purgeAfterMs).toBe(HOUR_MS);

  const now = Date.now();
  const at = (ms: number) => new Date(now + ms);
  const instances = repositories.serviceInstances;
  const ended = async (id: string, state: 'NOT_RUNNING' | 'TERMINATED', endedAgoMs: number) => {
    await instances.register({ id, role: 'CONTROLLER', host: 'node' }, at(-endedAgoMs - HOUR_MS));
    await instances.setState(id, state, at(-endedAgoMs));
  };
  await ended(`dead-2h-${run}`, 'NOT_RUNNING', 2 * HOUR_MS);
  await ended(`stopped-2h-${run}`, 'TERMINATED', 2 * HOUR_MS);
  await ended(`stopped-30m-${run}`, 'TERMINATED', HOUR_MS / 2);
  await ended(`dead-30m-${run}`, 'NOT_RUNNING', HOUR_MS / 2);
  await instances.register({ id: `live-${run}`, role: 'API', host: 'node' }, at(0));

  const coordinator = new LivenessCoordinator(
    repositories,
    queue,
    executorOptions({ topics: executorTopics(`purge-${run}.`) }),
    new ServiceInstanceIdentity('executor'),
    { ...settings, passIntervalMs: 500 },
  );
  coordinator.onApplicationBootstrap();
  try {
    const left = await eventually(
      'the instances that ended 2 h ago are purged',
      async () => {
        const ids = (await instances.list()).map((instance) => instance.id).filter((id) => id.endsWith(run));
        return ids.some((id) => id.includes('-2h-')) ? undefined : ids;
      },
      20_000,
    );
    expect(left.sort()).toEqual([`dead-30m-${run}`, `live-${run}`, `stopped-30m-${run}`].sort());
  } finally {
    await coordinator.beforeApplicationShutdown();
  }
}, 60_000);
