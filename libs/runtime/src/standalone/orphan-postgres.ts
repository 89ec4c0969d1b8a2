import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';

// A standalone process killed hard (SIGKILL, an out-of-memory kill, a crash of V8)
// runs no exit hook, so the PostgreSQL it started keeps running on its data dir,
// and the next start fails on the cluster's lock file. At start, standalone finds
// that PostgreSQL through the cluster's `postmaster.pid` and stops it, only when it
// is really the PostgreSQL of this cluster folder and the Lanner process that
// started it (the owner file) is gone.

/** The file, in the data dir, naming the Lanner process that started the cluster. */
export const POSTGRES_OWNER_FILE = 'postgres-owner';

const STOP_WAIT_MS = 30_000;
const POLL_MS = 100;

interface ProcessFacts {
  readonly parentPid: number;
  /** The command line: the program, then its arguments. */
  readonly args: readonly string[];
}

/** What the operating system says about a live process; undefined when there is none. */
function processFacts(pid: number): ProcessFacts | undefined {
  if (!alive(pid)) return undefined;
  const proc = `/proc/${pid}`;
  if (existsSync(proc)) {
    try {
      const args = readFileSync(join(proc, 'cmdline'), 'utf8').split('\0').filter(Boolean);
      // `pid (name) state ppid ...`: the name may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(join(proc, 'stat'), 'utf8');
      const parentPid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return { parentPid, args };
    } catch {
      return undefined;
    }
  }
  const ps = spawnSync('ps', ['-o', 'ppid=,command=', '-p', String(pid)], { encoding: 'utf8' });
  const match = /^\s*(\d+)\s+(.*)$/.exec(ps.stdout?.trim() ?? '');
  // Without /proc (macOS), `ps` gives the command line as one string: split on spaces, best effort.
  return match ? { parentPid: Number(match[1]), args: (match[2] as string).split(' ') } : undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under a user this process may not signal.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').split('\n')[0]?.trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** A Lanner (Node) process other than this one, alive. */
function isOtherLanner(pid: number | undefined): boolean {
  if (pid === undefined || pid === process.pid || pid === 1) return false;
  const facts = processFacts(pid);
  return facts !== undefined && /\bnode\b|lanner/.test(facts.args.join(' '));
}

/** Whether the process is a PostgreSQL server started on `clusterDir`. */
function isPostgresOf(facts: ProcessFacts, clusterDir: string): boolean {
  const [program = '', ...args] = facts.args;
  if (!/(^|\/)postgres$/.test(program)) return false;
  const dataFlag = args.indexOf('-D');
  return dataFlag >= 0 && resolve(args[dataFlag + 1] ?? '') === resolve(clusterDir);
}

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((settle) => setTimeout(settle, POLL_MS));
  }
  return condition();
}

export interface OrphanPostgresOptions {
  /** The cluster folder (`postmaster.pid` is in it). */
  readonly clusterDir: string;
  /** The data dir (the owner file is in it). */
  readonly dataDir: string;
  readonly logger: Logger;
}

/**
 * Stops the PostgreSQL a previous standalone process of this data dir left
 * running, and logs one line saying so. Leaves alone a PostgreSQL that is not
 * this cluster's (a reused pid, another data dir) or whose Lanner process is
 * still alive (two Lanners on one data dir: the start fails as it should).
 * Returns the pid it stopped.
 */
export async function stopOrphanPostgres(options: OrphanPostgresOptions): Promise<number | undefined> {
  const { clusterDir, dataDir, logger } = options;
  const pidFile = join(clusterDir, 'postmaster.pid');
  const pid = readPid(pidFile);
  if (pid === undefined) return undefined;
  const facts = processFacts(pid);
  if (facts === undefined || !isPostgresOf(facts, clusterDir)) return undefined;
  // The owner file names the Lanner that started it; without one (an older Lanner), its parent process does.
  const owner = readPid(join(dataDir, POSTGRES_OWNER_FILE)) ?? facts.parentPid;
  if (isOtherLanner(owner)) return undefined;

  // SIGINT is PostgreSQL's fast shutdown: it rolls back open transactions and disconnects their clients.
  process.kill(pid, 'SIGINT');
  if (!(await until(() => !alive(pid), STOP_WAIT_MS))) {
    // Immediate shutdown: PostgreSQL recovers from its WAL at the next start, as after a crash.
    process.kill(pid, 'SIGQUIT');
    await until(() => !alive(pid), STOP_WAIT_MS);
  }
  logger.warn(
    { postgresPid: pid, dataDir: clusterDir },
    'stopped the embedded PostgreSQL that a previous Lanner process left running on this data dir',
  );
  return pid;
}

/** Names this process as the owner of the cluster it started. */
export async function recordPostgresOwner(dataDir: string): Promise<void> {
  await writeFile(join(dataDir, POSTGRES_OWNER_FILE), `${process.pid}\n`, { mode: 0o600 });
}

export async function forgetPostgresOwner(dataDir: string): Promise<void> {
  await rm(join(dataDir, POSTGRES_OWNER_FILE), { force: true });
}
