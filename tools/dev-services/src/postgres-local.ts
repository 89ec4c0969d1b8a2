import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, chmodSync, closeSync, existsSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { PostgresBinaries, PostgresUserIds } from '@lanner/runtime';
import { DevServicesError } from './errors';
import { POSTGRES_DIR } from './paths';
import { freeLoopbackPort, isOurProcessAlive, logTail, rememberedPorts, sleep } from './processes';
import { ensureDatabase, postgresAnswers } from './readiness';
import type { RunningService } from './state';

/**
 * Development-only credentials: the server listens on loopback only and holds test
 * data, so a fixed password keeps every clone's DATABASE_URL predictable.
 */
const DEV_USER = 'lanner';
const DEV_PASSWORD = 'lanner';
const DEV_DATABASE = 'lanner';
const READY_TIMEOUT_MS = 60_000;

/**
 * The PostgreSQL binaries and the rules for running them as root, shared with
 * standalone. Loaded only when PostgreSQL starts: @lanner/runtime brings NestJS
 * along, which `status` and `down` do not need.
 */
type PostgresRules = Pick<
  typeof import('@lanner/runtime'),
  'initialisePostgresCluster' | 'postgresUserIds' | 'reachableByOtherUsers' | 'runnablePostgresBinaries' | 'runningAsRoot'
>;

/** PostgreSQL refuses to run as root; as root the server runs as the `postgres` user. */
function postgresUser(rules: PostgresRules): PostgresUserIds | undefined {
  if (!rules.runningAsRoot()) return undefined;
  const ids = rules.postgresUserIds();
  if (!ids) throw new DevServicesError('PostgreSQL cannot run as root and no `postgres` user exists: set DATABASE_URL');
  return ids;
}

/**
 * The binaries to run: the npm package's, or as root with the workspace out of the
 * `postgres` user's reach, a copy next to the data folder.
 */
function postgresBinaries(rules: PostgresRules, baseDir: string): PostgresBinaries {
  // The `postgres` user must pass through the folder a copy would go to.
  if (rules.runningAsRoot()) chmodSync(baseDir, 0o755);
  try {
    return rules.runnablePostgresBinaries({ copyDir: join(baseDir, 'postgres-native') });
  } catch (error) {
    throw new DevServicesError(error instanceof Error ? error.message : String(error));
  }
}

/** Runs initdb once (as the `postgres` user as root); the data folder then survives `down`, so migrations stay applied. */
function initialiseCluster(rules: PostgresRules, dataDir: string, logFile: string, binaries: PostgresBinaries): void {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  rmSync(dataDir, { recursive: true, force: true });
  const outcome = rules.initialisePostgresCluster({
    binaries,
    dataDir,
    superuser: DEV_USER,
    password: DEV_PASSWORD,
    runAs: postgresUser(rules),
  });
  appendFileSync(logFile, outcome.output);
  if (!outcome.ok) throw new DevServicesError(`initdb failed (log: ${logFile}):\n${logTail(logFile)}`);
}

/**
 * The data folder: under `.dev-services/` unless the server must run as the `postgres`
 * user and cannot reach the workspace (a clone under /root, mode 0700); then a folder
 * of its own under the system temp dir, named after the workspace so clones never share one.
 */
function postgresDataDir(rules: PostgresRules): string {
  const inWorkspace = join(POSTGRES_DIR, 'data');
  if (!rules.runningAsRoot() || rules.reachableByOtherUsers(inWorkspace)) return inWorkspace;
  const workspaceKey = createHash('sha256').update(POSTGRES_DIR).digest('hex').slice(0, 12);
  return join(tmpdir(), `lanner-dev-services-${workspaceKey}`, 'postgres-data');
}

export async function startLocalPostgres(onSpawned: (service: RunningService) => void): Promise<RunningService> {
  const rules: PostgresRules = await import('@lanner/runtime');
  const dataDir = postgresDataDir(rules);
  const logFile = join(POSTGRES_DIR, 'postgres.log');
  mkdirSync(POSTGRES_DIR, { recursive: true });
  mkdirSync(dirname(dataDir), { recursive: true });
  const binaries = postgresBinaries(rules, dirname(dataDir));
  initialiseCluster(rules, dataDir, logFile, binaries);
  const postgres = binaries.postgres;
  const ids = postgresUser(rules);
  const portFile = join(POSTGRES_DIR, 'port');
  const port = await freeLoopbackPort(rememberedPorts(portFile)[0]);
  writeFileSync(portFile, `${port}\n`);

  const out = openSync(logFile, 'a');
  const child = spawn(
    postgres,
    [
      '-D',
      dataDir,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      // No Unix socket: its path could exceed the OS limit in a deep clone, and clients use TCP.
      '-c',
      'unix_socket_directories=',
      // Test data: losing the last commits on a crash is fine, waiting for each flush is not.
      '-c',
      'synchronous_commit=off',
      '-c',
      'max_connections=200',
    ],
    { cwd: POSTGRES_DIR, detached: true, stdio: ['ignore', out, out], ...(ids ?? {}) },
  );
  closeSync(out);
  const pid = child.pid;
  child.unref();
  if (pid === undefined) throw new DevServicesError(`PostgreSQL did not start: see ${logFile}`);

  // SIGINT is PostgreSQL's "fast" shutdown: it does not wait for clients to disconnect.
  const handle = { kind: 'process', pid, commandMarker: dataDir, stopSignal: 'SIGINT' } as const;
  const connection = `postgresql://${DEV_USER}:${DEV_PASSWORD}@127.0.0.1:${port}/${DEV_DATABASE}`;
  const adminConnection = `postgresql://${DEV_USER}:${DEV_PASSWORD}@127.0.0.1:${port}/postgres`;
  const service: RunningService = { source: 'local', connection, handle, logFile, startedAt: new Date().toISOString() };
  onSpawned(service);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!isOurProcessAlive(handle)) {
      throw new DevServicesError(`PostgreSQL exited while starting (log: ${logFile}):\n${logTail(logFile)}`);
    }
    if (await postgresAnswers(adminConnection, 2_000)) {
      await ensureDatabase(connection);
      return service;
    }
    await sleep(250);
  }
  throw new DevServicesError(`PostgreSQL did not answer within ${READY_TIMEOUT_MS / 1000} s (log: ${logFile})`);
}
