/**
 * The work an execution costs, counted rather than timed: the totals each role process
 * writes through `counter.cjs` (SQL statements and transactions, Kafka requests by API,
 * queue messages by topic, gRPC messages), the CPU time of every process from `/proc`
 * (the role processes, their children such as standalone's embedded PostgreSQL, the
 * PostgreSQL backends serving the run's database, the Kafka broker) and PostgreSQL's own
 * transaction count for the database (`pg_stat_database`). Counts repeat from run to run
 * on a loaded machine; times do not.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

const CLOCK_TICKS_PER_SECOND = 100;

interface ProcessCounts {
  readonly name: string;
  readonly pid: number;
  readonly counts: Record<string, number>;
}

export interface Snapshot {
  /** Summed over processes: `sql`, `sql SELECT`, `transactions`, `kafka Produce`, `message <topic>`, `grpc received`. */
  readonly counts: Record<string, number>;
  /** CPU clock ticks by process label. */
  readonly cpuTicks: Record<string, number>;
  /** xact_commit + xact_rollback of the run's database, when it is known. */
  readonly databaseTransactions?: number;
}

export interface CountSources {
  /** The folder the counted processes write to (LANNER_BENCH_COUNTS_DIR). */
  readonly countsDir: string;
  /** A URL of the PostgreSQL server the roles use, and the run's database name on it (distributed). */
  readonly serverDatabaseUrl?: string;
  readonly databaseName?: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The counted processes alive now, by label (`standalone`, `executor`...) and pid. */
export function countedProcesses(dir: string): { readonly name: string; readonly pid: number }[] {
  return readCounts(dir).map(({ name, pid }) => ({ name, pid }));
}

function readCounts(dir: string): ProcessCounts[] {
  const found: ProcessCounts[] = [];
  for (const file of readdirSync(dir)) {
    if (!file.endsWith('.json')) continue;
    try {
      const one = JSON.parse(readFileSync(join(dir, file), 'utf8')) as ProcessCounts;
      if (alive(one.pid)) found.push(one);
    } catch {
      // A file being replaced; its totals arrive in the next snapshot.
    }
  }
  return found;
}

interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  readonly comm: string;
  readonly ticks: number;
}

function procStats(): Map<number, ProcStat> {
  const stats = new Map<number, ProcStat>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields[0] is field 3 (state): ppid is field 4, utime and stime fields 14 and 15.
      stats.set(Number(entry), {
        pid: Number(entry),
        ppid: Number(fields[1]),
        comm,
        ticks: Number(fields[11]) + Number(fields[12]),
      });
    } catch {
      // The process ended meanwhile.
    }
  }
  return stats;
}

function kafkaBrokerPid(stats: Map<number, ProcStat>): number | undefined {
  for (const { pid, comm } of stats.values()) {
    if (comm !== 'java') continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('kafka')) return pid;
    } catch {
      // Ended meanwhile.
    }
  }
  return undefined;
}

async function databaseFigures(sources: CountSources): Promise<{ backends: number[]; transactions?: number }> {
  if (!sources.serverDatabaseUrl || !sources.databaseName) return { backends: [] };
  const client = new Client({ connectionString: sources.serverDatabaseUrl });
  await client.connect();
  try {
    const backends = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [sources.databaseName],
    );
    const database = await client.query<{ transactions: string }>(
      'SELECT (xact_commit + xact_rollback)::text AS transactions FROM pg_stat_database WHERE datname = $1',
      [sources.databaseName],
    );
    return { backends: backends.rows.map((row) => row.pid), transactions: Number(database.rows[0]?.transactions ?? Number.NaN) };
  } finally {
    await client.end();
  }
}

export async function snapshot(sources: CountSources): Promise<Snapshot> {
  const counts: Record<string, number> = {};
  const cpuTicks: Record<string, number> = {};
  const add = (into: Record<string, number>, key: string, value: number): void => {
    into[key] = (into[key] ?? 0) + value;
  };
  const stats = procStats();
  const children = new Map<number, ProcStat[]>();
  for (const stat of stats.values()) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  const descendants = (pid: number): ProcStat[] =>
    (children.get(pid) ?? []).flatMap((child) => [child, ...descendants(child.pid)]);

  // A worker thread of a role (the api parses large flows in one) counts on its own under the
  // role's pid, as `node`: its counts add up, but the pid's CPU is taken once, under the role's name.
  const counted = readCounts(sources.countsDir).sort((a, b) => Number(a.name === 'node') - Number(b.name === 'node'));
  const cpuTaken = new Set<number>();
  for (const one of counted) {
    for (const [kind, n] of Object.entries(one.counts)) add(counts, kind, n);
    add(counts, `by process sql ${one.name}`, one.counts['sql'] ?? 0);
    add(counts, `by process transactions ${one.name}`, one.counts['transactions'] ?? 0);
    if (cpuTaken.has(one.pid)) continue;
    cpuTaken.add(one.pid);
    add(cpuTicks, one.name, stats.get(one.pid)?.ticks ?? 0);
    // Standalone's embedded PostgreSQL (and anything else a role starts) counts for that role.
    for (const child of descendants(one.pid)) add(cpuTicks, `${one.name} ${child.comm.split(/[\s:]/)[0]}`, child.ticks);
  }
  const database = await databaseFigures(sources);
  for (const pid of database.backends) add(cpuTicks, 'postgres', stats.get(pid)?.ticks ?? 0);
  const broker = kafkaBrokerPid(stats);
  if (broker !== undefined && sources.databaseName) add(cpuTicks, 'kafka broker (shared)', stats.get(broker)?.ticks ?? 0);
  return { counts, cpuTicks, databaseTransactions: database.transactions };
}

export interface PhaseCounts {
  readonly perExecution: Record<string, number>;
  readonly cpuMsPerExecution: Record<string, number>;
  readonly databaseTransactionsPerExecution?: number;
}

const round = (value: number): number => Math.round(value * 100) / 100;

/**
 * What `executions` cost between two snapshots. A PostgreSQL backend that was not there at
 * the start counts from zero; one that left before the end is missed (pools keep theirs).
 */
export function perExecution(before: Snapshot, after: Snapshot, executions: number): PhaseCounts {
  const diff = (a: Record<string, number>, b: Record<string, number>, scale: number): Record<string, number> => {
    const result: Record<string, number> = {};
    for (const key of Object.keys(b).sort()) {
      const delta = b[key] - (a[key] ?? 0);
      if (delta > 0) result[key] = round((delta * scale) / executions);
    }
    return result;
  };
  const transactions =
    before.databaseTransactions !== undefined && after.databaseTransactions !== undefined
      ? round((after.databaseTransactions - before.databaseTransactions) / executions)
      : undefined;
  return {
    perExecution: diff(before.counts, after.counts, 1),
    cpuMsPerExecution: diff(before.cpuTicks, after.cpuTicks, 1000 / CLOCK_TICKS_PER_SECOND),
    databaseTransactionsPerExecution: Number.isFinite(transactions) ? transactions : undefined,
  };
}

/**
 * A phase's counts less what the processes do when idle (timer polls, heartbeats, Kafka
 * fetches), `idle` being per-second rates (`perExecution` over an idle window, divided by
 * its seconds): what the executions themselves cost, whatever the rate the machine allowed.
 */
export function netOfIdle(phase: PhaseCounts, idle: PhaseCounts, phaseSeconds: number, executions: number): PhaseCounts {
  const less = (values: Record<string, number>, rates: Record<string, number>): Record<string, number> =>
    Object.fromEntries(
      Object.entries(values).map(([key, n]) => [key, round(Math.max(0, n - ((rates[key] ?? 0) * phaseSeconds) / executions))]),
    );
  return {
    perExecution: less(phase.perExecution, idle.perExecution),
    cpuMsPerExecution: less(phase.cpuMsPerExecution, idle.cpuMsPerExecution),
  };
}

/** The four figures to compare from commit to commit. */
export function headline(phase: PhaseCounts): string {
  const c = phase.perExecution;
  const kafkaWrites = round((c['kafka Produce'] ?? 0) + (c['kafka OffsetCommit'] ?? 0));
  return (
    `${c['sql'] ?? 0} SQL statements, ${c['transactions'] ?? 0} transactions, ${kafkaWrites} Kafka produce + commit, ` +
    `${total(phase.cpuMsPerExecution, '')} ms CPU`
  );
}

function group(values: Record<string, number>, prefix: string): string {
  const entries = Object.entries(values)
    .filter(([key]) => key.startsWith(prefix))
    .sort((a, b) => b[1] - a[1])
    .map(([key, n]) => `${key.slice(prefix.length)} ${n}`);
  return entries.join(', ');
}

function total(values: Record<string, number>, prefix: string): number {
  return round(
    Object.entries(values)
      .filter(([key]) => key.startsWith(prefix))
      .reduce((sum, [, n]) => sum + n, 0),
  );
}

/** One line: the counts per execution of a phase. */
export function describe(phase: PhaseCounts): string {
  const c = phase.perExecution;
  const kafkaWrites = round((c['kafka Produce'] ?? 0) + (c['kafka OffsetCommit'] ?? 0));
  const cpu = total(phase.cpuMsPerExecution, '');
  const database =
    phase.databaseTransactionsPerExecution === undefined ? '' : `, pg_stat_database ${phase.databaseTransactionsPerExecution}`;
  const queue =
    total(c, 'kafka ') === 0
      ? 'queue in process (messages and Kafka requests not counted); '
      : `${total(c, 'message ')} queue messages (${group(c, 'message ')}); ` +
        `${total(c, 'kafka ')} Kafka requests, ${kafkaWrites} produce + commit (${group(c, 'kafka ')}); `;
  return (
    `per execution: ${c['sql'] ?? 0} SQL statements (${group(c, 'sql ')}; ${group(c, 'by process sql ')}) ` +
    `in ${c['transactions'] ?? 0} transactions (${group(c, 'by process transactions ')}${database}); ` +
    queue +
    `${c['grpc received'] ?? 0} gRPC messages; ` +
    `CPU ${cpu} ms (${group(phase.cpuMsPerExecution, '')})`
  );
}
