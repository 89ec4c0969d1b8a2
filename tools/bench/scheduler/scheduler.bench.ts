/**
 * The scheduler under 10,000 schedules due every minute: the drift from each
 * due date to its execution's creation (p50, p99, max), the time the
 * scheduler spent in each step of its batches (its own metrics, scraped from
 * `/metrics`) and the work per firing, counted on both sides: SQL statements
 * and transactions as PostgreSQL counted them for the bench's database
 * (`pg_stat_statements` when the server loads it, `pg_stat_database`), the
 * statements the scheduler's pg clients sent, and Kafka produce requests.
 *
 * A fresh database on the server DATABASE_URL names, and the Kafka of
 * KAFKA_BROKERS under a namespace of its own; `lanner server scheduler`
 * processes (SCHEDULER_BENCH_SCHEDULERS, default 1) with the bench counter
 * preloaded. No executor runs: the executions stay CREATED, which is what is
 * measured (due date -> execution created). It is a bench, not a test.
 *
 *   SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register tools/bench/scheduler/scheduler.bench.ts
 *
 * Knobs: SCHEDULER_BENCH_FLOWS (10000), SCHEDULER_BENCH_MINUTES (3 measured due minutes),
 * SCHEDULER_BENCH_SCHEDULERS (1), SCHEDULER_BENCH_PROFILE_DIR (a CPU profile per scheduler),
 * SCHEDULER_BENCH_AHEAD_MS (how far ahead the schedulers claim; their default when unset).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_TENANT_ID, parseFlow } from '@lanner/model';
import { applyMigrations, openRepositories, type Repositories } from '@lanner/repository';
import { Client } from 'pg';

const FLOWS = Number(process.env['SCHEDULER_BENCH_FLOWS'] ?? 10_000);
const MINUTES = Number(process.env['SCHEDULER_BENCH_MINUTES'] ?? 3);
const SCHEDULERS = Number(process.env['SCHEDULER_BENCH_SCHEDULERS'] ?? 1);
/** When set, each scheduler writes a CPU profile (.cpuprofile) there as it stops. */
const PROFILE_DIR = process.env['SCHEDULER_BENCH_PROFILE_DIR'];
const AHEAD_MS = process.env['SCHEDULER_BENCH_AHEAD_MS'];
const WORKSPACE = resolve(__dirname, '../../..');
const run = `${process.pid}_${randomBytes(3).toString('hex')}`;
const databaseName = `lanner_bench_scheduler_${run}`;
const countsDir = mkdtempSync(join(tmpdir(), 'lanner-bench-scheduler-counts-'));
const logDir = mkdtempSync(join(tmpdir(), 'lanner-bench-scheduler-logs-'));

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

function flowSource(index: number): string {
  return `id: bench-${index}
namespace: bench.scheduler
tasks:
  - { id: hello, type: io.kestra.plugin.core.log.Log, message: "{{ trigger.date }}" }
triggers:
  - { id: minute, type: io.kestra.plugin.core.trigger.Schedule, cron: "* * * * *" }
`;
}

async function onServer(sql: string): Promise<void> {
  const admin = new Client({ connectionString: process.env['DATABASE_URL'] });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/** Summed running totals of the counted scheduler processes. */
function counts(): Record<string, number> {
  const total: Record<string, number> = {};
  for (const file of readdirSync(countsDir)) {
    if (!file.endsWith('.json')) continue;
    try {
      const one = JSON.parse(readFileSync(join(countsDir, file), 'utf8')) as { counts: Record<string, number> };
      for (const [kind, value] of Object.entries(one.counts)) total[kind] = (total[kind] ?? 0) + value;
    } catch {
      // Being replaced; read again at the next snapshot.
    }
  }
  return total;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** The scheduler metrics of one process, from its `/metrics` text: each step's total seconds and count, the delay buckets. */
interface SchedulerMetrics {
  readonly steps: Record<string, { seconds: number; count: number }>;
  /** Cumulative: firings committed within `le` seconds of their date. */
  readonly delayBuckets: Record<string, number>;
}

async function scrape(port: number): Promise<SchedulerMetrics> {
  const steps: SchedulerMetrics['steps'] = {};
  const delayBuckets: Record<string, number> = {};
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    for (const line of text.split('\n')) {
      const step = /^lanner_scheduler_step_seconds_(sum|count)\{(?:[^}]*,)?step="(\w+)"[^}]*\} (\S+)$/.exec(line);
      if (step !== null) {
        const entry = (steps[step[2]] ??= { seconds: 0, count: 0 });
        if (step[1] === 'sum') entry.seconds = Number(step[3]);
        else entry.count = Number(step[3]);
      }
      const bucket = /^lanner_scheduler_firing_delay_seconds_bucket\{(?:[^}]*,)?le="([^"]+)"[^}]*\} (\S+)$/.exec(line);
      if (bucket !== null) delayBuckets[bucket[1]] = Number(bucket[2]);
    }
  } catch {
    // A scheduler not answering counts nothing.
  }
  return { steps, delayBuckets };
}

/** The sum over the schedulers of `after - before`. */
function metricsDelta(before: readonly SchedulerMetrics[], after: readonly SchedulerMetrics[]): SchedulerMetrics {
  const steps: SchedulerMetrics['steps'] = {};
  const delayBuckets: Record<string, number> = {};
  after.forEach((one, index) => {
    for (const [step, { seconds, count }] of Object.entries(one.steps)) {
      const earlier = before[index]?.steps[step] ?? { seconds: 0, count: 0 };
      const entry = (steps[step] ??= { seconds: 0, count: 0 });
      entry.seconds += seconds - earlier.seconds;
      entry.count += count - earlier.count;
    }
    for (const [le, value] of Object.entries(one.delayBuckets)) {
      delayBuckets[le] = (delayBuckets[le] ?? 0) + value - (before[index]?.delayBuckets[le] ?? 0);
    }
  });
  return { steps, delayBuckets };
}

/** What PostgreSQL counted for the bench's database: statements (when pg_stat_statements is loaded), transactions, rows. */
interface ServerCounts {
  readonly statements: number | undefined;
  readonly transactions: number;
  readonly rowsInserted: number;
  readonly rowsUpdated: number;
}

async function serverCounts(client: Client, statementsLoaded: boolean): Promise<ServerCounts> {
  const { rows } = await client.query<{ xacts: string; inserted: string; updated: string }>(
    `SELECT xact_commit + xact_rollback AS xacts, tup_inserted AS inserted, tup_updated AS updated
     FROM pg_stat_database WHERE datname = current_database()`,
  );
  let statements: number | undefined;
  if (statementsLoaded) {
    const counted = await client.query<{ calls: string | null }>(
      `SELECT sum(calls) AS calls FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    statements = Number(counted.rows[0].calls ?? 0);
  }
  return {
    statements,
    transactions: Number(rows[0].xacts),
    rowsInserted: Number(rows[0].inserted),
    rowsUpdated: Number(rows[0].updated),
  };
}

async function createFlows(repositories: Repositories): Promise<void> {
  let next = 0;
  const one = async (): Promise<void> => {
    for (let index = next++; index < FLOWS; index = next++) {
      const source = flowSource(index);
      const parsed = parseFlow(source);
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
      await repositories.flows.create(DEFAULT_TENANT_ID, {
        namespace: 'bench.scheduler',
        flowId: parsed.flow.id,
        source,
        definition: JSON.parse(JSON.stringify(parsed.flow)),
      });
    }
  };
  await Promise.all(Array.from({ length: 8 }, one));
}

async function main(): Promise<void> {
  await onServer(`CREATE DATABASE ${databaseName}`);
  const url = new URL(process.env['DATABASE_URL'] ?? '');
  url.pathname = `/${databaseName}`;
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  let repositories: Repositories | undefined;
  const client = new Client({ connectionString: url.toString() });
  try {
    await applyMigrations(url.toString());
    repositories = await openRepositories(url.toString(), { poolSize: 8 });
    await client.connect();
    // Statements are counted by the server when it loads pg_stat_statements (shared_preload_libraries).
    const { rows: preloaded } = await client.query<{ loaded: boolean }>(
      `SELECT current_setting('shared_preload_libraries') LIKE '%pg_stat_statements%' AS loaded`,
    );
    const statementsLoaded = preloaded[0].loaded;
    if (statementsLoaded) await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const loadStarted = Date.now();
    await createFlows(repositories);
    process.stdout.write(`${FLOWS} flows created in ${((Date.now() - loadStarted) / 1000).toFixed(1)} s\n`);

    for (let index = 0; index < SCHEDULERS; index++) {
      const output = openSync(join(logDir, `scheduler-${index}.log`), 'a');
      const port = 18_500 + index + (process.pid % 1000);
      ports.push(port);
      children.push(
        spawn(
          process.execPath,
          [
            ...(PROFILE_DIR === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`]),
            join(WORKSPACE, 'bin/lanner.js'),
            'server',
            'scheduler',
          ],
          {
            cwd: WORKSPACE,
            env: {
              ...process.env,
              DATABASE_URL: url.toString(),
              LANNER_KAFKA_NAMESPACE: `bench-scheduler-${run}.`,
              LANNER_HTTP_PORT: String(port),
              ...(AHEAD_MS === undefined ? {} : { LANNER_SCHEDULER_AHEAD_MS: AHEAD_MS }),
              LANNER_HTTP_HOST: '127.0.0.1',
              LANNER_LOG_LEVEL: 'warn',
              LANNER_BENCH_COUNTS_DIR: countsDir,
              NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} -r ${join(WORKSPACE, 'tools/bench/e2e/counter.cjs')}`.trim(),
              KAFKAJS_NO_PARTITIONER_WARNING: '1',
            },
            stdio: ['ignore', output, output],
          },
        ),
      );
    }

    // Every schedule is evaluated once (it fires nothing then) before the measured minutes.
    for (;;) {
      const { rows } = await client.query<{ pending: string }>('SELECT count(*) AS pending FROM flow_triggers WHERE pending');
      if (Number(rows[0].pending) === 0) break;
      await sleep(1000);
    }
    const firstMeasured = Math.ceil((Date.now() + 5000) / 60_000) * 60_000;
    const lastMeasured = firstMeasured + (MINUTES - 1) * 60_000;
    process.stdout.write(
      `measuring the due minutes ${new Date(firstMeasured).toISOString()} .. ${new Date(lastMeasured).toISOString()}\n`,
    );
    await sleep(firstMeasured - Date.now() - 2000);
    const before = counts();
    const metricsBefore = await Promise.all(ports.map(scrape));
    const serverBefore = await serverCounts(client, statementsLoaded);
    // The bench's own statements on the database between the two server snapshots (each one transaction).
    let own = statementsLoaded ? 1 : 0;
    // Until every measured date fired (or 3 minutes after the last one), then the counters' last write.
    const deadline = lastMeasured + 180_000;
    for (;;) {
      own += 1;
      const { rows } = await client.query<{ fired: string }>(
        `SELECT count(*) AS fired FROM executions
         WHERE (trigger->'variables'->>'date')::timestamptz BETWEEN $1 AND $2`,
        [new Date(firstMeasured), new Date(lastMeasured)],
      );
      if (Number(rows[0].fired) >= FLOWS * MINUTES || Date.now() > deadline) break;
      await sleep(1000);
    }
    // PostgreSQL's backends publish their counts at most once a second; the scheduler's counter file every 200 ms.
    await sleep(1500);
    const after = counts();
    const metricsAfter = await Promise.all(ports.map(scrape));
    const serverAfter = await serverCounts(client, statementsLoaded);
    own += 1;

    const { rows } = await client.query<{ drift_ms: number }>(
      `SELECT extract(epoch FROM created_at - (trigger->'variables'->>'date')::timestamptz) * 1000 AS drift_ms
       FROM executions WHERE (trigger->'variables'->>'date')::timestamptz BETWEEN $1 AND $2`,
      [new Date(firstMeasured), new Date(lastMeasured)],
    );
    const drifts = rows.map((row) => Number(row.drift_ms)).sort((a, b) => a - b);
    const { rows: duplicates } = await client.query<{ duplicates: string }>(
      `SELECT count(*) - count(DISTINCT (flow_id, trigger->'variables'->>'date')) AS duplicates FROM executions`,
    );
    const fired = drifts.length;
    const delta = (kind: string) => (after[kind] ?? 0) - (before[kind] ?? 0);
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const perFiringOf = (value: number) => (fired === 0 ? Number.NaN : Number((value / fired).toFixed(3)));
    const metrics = metricsDelta(metricsBefore, metricsAfter);
    const steps = Object.fromEntries(
      Object.entries(metrics.steps).map(([step, { seconds, count }]) => [
        step,
        {
          calls: count,
          totalS: Number(seconds.toFixed(2)),
          meanMs: count === 0 ? 0 : Number(((seconds / count) * 1000).toFixed(1)),
        },
      ]),
    );
    const delayed = metrics.delayBuckets['+Inf'] ?? 0;
    const within = (le: string) => (delayed === 0 ? Number.NaN : Number(((metrics.delayBuckets[le] ?? 0) / delayed).toFixed(4)));
    const report = {
      flows: FLOWS,
      schedulers: SCHEDULERS,
      measuredMinutes: MINUTES,
      expected: FLOWS * MINUTES,
      fired,
      duplicates: Number(duplicates[0].duplicates),
      driftMs: {
        p50: Math.round(percentile(drifts, 50)),
        p99: Math.round(percentile(drifts, 99)),
        max: Math.round(drifts.at(-1) ?? Number.NaN),
      },
      // The scheduler's own view: each step's calls and time, and its firings committed within 0.5 s / 1 s of their date.
      schedulerSteps: steps,
      schedulerFiringDelay: { firings: delayed, within500ms: within('0.5'), within1s: within('1') },
      perFiring: {
        // As PostgreSQL counted them for the bench's database, the bench's own statements taken out.
        server: {
          sqlStatements:
            serverAfter.statements === undefined || serverBefore.statements === undefined
              ? 'pg_stat_statements not loaded by the server'
              : perFiringOf(serverAfter.statements - serverBefore.statements - own),
          transactions: perFiringOf(serverAfter.transactions - serverBefore.transactions - own),
          rowsInserted: perFiringOf(serverAfter.rowsInserted - serverBefore.rowsInserted),
          rowsUpdated: perFiringOf(serverAfter.rowsUpdated - serverBefore.rowsUpdated),
        },
        // As the schedulers' pg clients sent them (tools/bench/e2e/counter.cjs).
        client: {
          sqlStatements: perFiringOf(delta('sql')),
          transactions: perFiringOf(delta('transactions')),
          kafkaProduce: perFiringOf(delta('kafka Produce')),
        },
      },
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version, loadAverage: load },
      date: new Date().toISOString(),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(
      children.map((child) => new Promise((done) => (child.exitCode !== null ? done(undefined) : child.once('exit', done)))),
    );
    await client.end().catch(() => undefined);
    await repositories?.close();
    await onServer(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
