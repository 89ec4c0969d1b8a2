import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, requiredEnv } from '@lanner/testing';
import { ClusterState } from './cluster-state';
import { ControlServer } from './control-server';
import { createRunDatabase, dropRunDatabase, runDatabaseUrl } from './database';
import { lannerBin, RoleProcess, RoleProcessSpec, workspaceRoot } from './role-process';

// Generous: on 2 shared cores, six processes compile their TypeScript at once.
const READY_DEADLINE_MS = 120_000;
const STOP_GRACE_MS = 10_000;
/** Small on purpose: a fan-out of more tasks than one worker's slots must use both workers. */
export const WORKER_SLOTS = 2;
export const WORKER_NAMES = ['e2e-worker-a', 'e2e-worker-b'] as const;

/**
 * Internal storage of the api (FILE inputs, downloads) and the workers: the S3-compatible store of the dev services when
 * S3_ENDPOINT is set (its AWS_* keys reach the workers through the environment, the SDK's
 * default chain), under a key prefix of this run's own; otherwise one local folder all the
 * run's workers share. Workers started later copy it with the rest of a worker's env.
 */
function storageEnv(workDir: string, runId: string): NodeJS.ProcessEnv {
  const endpoint = process.env['S3_ENDPOINT'];
  if (!endpoint) return { LANNER_STORAGE_TYPE: 'local', LANNER_STORAGE_LOCAL_DIR: join(workDir, 'storage') };
  return {
    LANNER_STORAGE_TYPE: 's3',
    LANNER_STORAGE_S3_ENDPOINT: endpoint,
    LANNER_STORAGE_S3_BUCKET: process.env['S3_BUCKET'] ?? 'lanner-dev',
    LANNER_STORAGE_S3_PATH_STYLE: 'true',
    LANNER_STORAGE_S3_PREFIX: runId.replace(/[^A-Za-z0-9_-]/g, ''),
  };
}

/** Everything a running cluster holds, to stop it and clean up after it. */
export interface Cluster {
  readonly state: ClusterState;
  readonly processes: RoleProcess[];
  readonly serverDatabaseUrl: string;
  /** Lets specs restart a role process (they cannot reach these child processes themselves). */
  readonly control: ControlServer;
}

function migrate(databaseUrl: string): void {
  const result = spawnSync(process.execPath, [lannerBin, 'db', 'migrate'], {
    cwd: workspaceRoot,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (result.status !== 0) {
    throw new Error(`lanner db migrate failed (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
}

/**
 * Starts api, executor, controller, indexer, scheduler and two workers as separate processes on
 * the real Kafka and a fresh PostgreSQL database, and waits until every one is ready.
 * On any failure it stops what it started and drops the database before throwing.
 */
export async function startCluster(processes: RoleProcess[]): Promise<Cluster> {
  const serverDatabaseUrl = requiredEnv('DATABASE_URL', 'the e2e suite');
  const kafkaBrokers = requiredEnv('KAFKA_BROKERS', 'the e2e suite');
  const workDir = mkdtempSync(join(tmpdir(), 'lanner-e2e-'));
  const logDir = join(workDir, 'logs');
  const scratchDir = join(workDir, 'scratch');
  mkdirSync(logDir);
  mkdirSync(scratchDir);
  chmodSync(workDir, 0o755);
  // The workers' script tasks run as a user of their own (docs/task-isolation.md): they write here too.
  chmodSync(scratchDir, 0o777);
  const databaseName = `lanner_e2e_${process.pid}`;
  const databaseUrl = runDatabaseUrl(serverDatabaseUrl, databaseName);
  const adminToken = `e2e-${randomBytes(32).toString('base64url')}`;
  // The run's own topics and consumer groups: another cluster on this broker (a bench, a second run) cannot touch them.
  const kafkaNamespace = `e2e-${process.pid}-${randomBytes(4).toString('hex')}.`;

  const logFiles: Record<string, string> = {};
  let control: ControlServer | undefined;
  try {
    control = await ControlServer.listen(processes, READY_DEADLINE_MS);
    await createRunDatabase(serverDatabaseUrl, databaseName);
    migrate(databaseUrl);
    const [apiPort, executorPort, controllerPort, indexerPort, schedulerPort, grpcPort, ...workerPorts] = await Promise.all(
      Array.from({ length: 6 + WORKER_NAMES.length }, () => freePort()),
    );
    // Workers get none of the server variables: they talk to controllers only.
    const { DATABASE_URL: _database, KAFKA_BROKERS: _kafka, ...baseEnv } = process.env;
    const common: NodeJS.ProcessEnv = {
      ...baseEnv,
      LANNER_LOG_LEVEL: process.env['LANNER_E2E_LOG_LEVEL'] ?? 'info',
      KAFKAJS_NO_PARTITIONER_WARNING: '1',
    };
    const server: NodeJS.ProcessEnv = {
      ...common,
      DATABASE_URL: databaseUrl,
      KAFKA_BROKERS: kafkaBrokers,
      LANNER_KAFKA_NAMESPACE: kafkaNamespace,
    };
    const spec = (name: string, role: RoleProcessSpec['role'], httpPort: number, env: NodeJS.ProcessEnv): RoleProcessSpec => {
      logFiles[name] = join(logDir, `${name}.log`);
      return {
        name,
        role,
        httpPort,
        logFile: logFiles[name],
        env: { ...env, LANNER_HTTP_PORT: String(httpPort), LANNER_HTTP_HOST: '127.0.0.1' },
      };
    };
    const servers = [
      spec('api', 'api', apiPort, { ...server, ...storageEnv(workDir, kafkaNamespace), LANNER_ADMIN_TOKEN: adminToken }),
      spec('executor', 'executor', executorPort, { ...server, LANNER_TIMER_INTERVAL_MS: '200' }),
      spec('controller', 'controller', controllerPort, {
        ...server,
        LANNER_GRPC_HOST: '127.0.0.1',
        LANNER_GRPC_PORT: String(grpcPort),
        LANNER_ALLOW_ANONYMOUS_WORKERS: 'true',
        LANNER_JWT_SIGNING_KEY: `e2e-jwt-signing-key-${randomBytes(24).toString('hex')}`,
      }),
      spec('indexer', 'indexer', indexerPort, server),
      spec('scheduler', 'scheduler', schedulerPort, server),
    ];
    const workers = WORKER_NAMES.map((name, index) =>
      spec(name, 'worker', workerPorts[index], {
        ...common,
        ...storageEnv(workDir, kafkaNamespace),
        LANNER_WORKER_CONTROLLERS: `127.0.0.1:${grpcPort}`,
        LANNER_WORKER_NAME: name,
        LANNER_WORKER_SLOTS: String(WORKER_SLOTS),
        LANNER_WORKER_DATA_DIR: join(workDir, name),
      }),
    );
    const state: ClusterState = {
      apiUrl: `http://127.0.0.1:${apiPort}`,
      adminToken,
      scratchDir,
      workDir,
      logFiles,
      databaseName,
      kafkaNamespace,
      controllerGrpcPort: grpcPort,
      control: { url: control.url, token: control.token },
    };
    const stateFile = join(workDir, 'cluster.json');
    writeFileSync(stateFile, JSON.stringify(state, null, 2));
    control.attach(state, stateFile);

    const serverProcesses = servers.map((one) => new RoleProcess(one));
    processes.push(...serverProcesses);
    // Workers start once every server is ready (the api seeds the reserved worker
    // topology at start), so they do not begin in reconnect backoff.
    await Promise.all(serverProcesses.map((one) => one.waitUntilReady(READY_DEADLINE_MS)));
    const workerProcesses = workers.map((one) => new RoleProcess(one));
    processes.push(...workerProcesses);
    await Promise.all(workerProcesses.map((one) => one.waitUntilReady(READY_DEADLINE_MS)));
    return { state, processes, serverDatabaseUrl, control };
  } catch (error) {
    // The failing process's tail is in the error; the others' often say why (a refused stream...).
    const others = processes.map((one) => one.tail(15)).join('\n');
    await stopProcesses(processes);
    await control?.close();
    await dropRunDatabase(serverDatabaseUrl, databaseName).catch(() => undefined);
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(
      `the e2e cluster did not start: ${message}\n\nevery role's last lines (all logs kept in ${logDir}):\n${others}`,
    );
  }
}

export async function stopProcesses(processes: readonly RoleProcess[]): Promise<void> {
  // Workers first: their draining must not race a controller that is already gone.
  const workers = processes.filter((one) => one.spec.role === 'worker');
  const servers = processes.filter((one) => one.spec.role !== 'worker');
  await Promise.all(workers.map((one) => one.stop(STOP_GRACE_MS)));
  await Promise.all(servers.map((one) => one.stop(STOP_GRACE_MS)));
}
