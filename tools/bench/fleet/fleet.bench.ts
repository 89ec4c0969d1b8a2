/**
 * Fleet bench: one real controller process (`node bin/lanner.js server
 * controller`) with thousands of simulated workers on real gRPC streams, held
 * by a separate load process (load.ts), on the dev services' Kafka and a
 * PostgreSQL database of the bench's own. Measures:
 *   1. controller memory per idle stream (VmRSS, and V8 heap from /metrics) at
 *      several fleet sizes;
 *   2. dispatch latency: job published on `lanner.worker-jobs.<queue>` -> Job
 *      frame received by a simulated worker, at a fixed rate over every queue;
 *   3. reconfiguration propagation: a subscription's reserved percent changed ->
 *      every connected worker received ConfigChanged;
 * plus the CPU of the controller and of the load process in each phase.
 *
 *   node tools/bench/fleet/run.js --workers 2000 --queues 20 --rate 200 --duration 30
 *
 * Prints a human table and, last, one JSON line. Cleans up (processes, topics,
 * consumer groups, database) at the end and on Ctrl-C. A timing belongs here
 * and in docs/BENCHMARKS.md, never in a test.
 */
import { DEFAULT_TENANT_ID, DEFAULT_WORKER_GROUP_ID, RESERVED_WORKER_QUEUE_IDS } from '@lanner/model';
import { ChildProcess, execFileSync, fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, cpSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { parse as parseYaml } from 'yaml';
import { join } from 'node:path';
import {
  broadcastCodec,
  decodeQueueMessage,
  DEFAULT_TOPIC_PARTITIONS,
  encodeQueueMessage,
  jobMessageId,
  QueueTopics,
  spineTopics,
  workerJobCodec,
  workerJobsTopic,
} from '@lanner/frames';
import {
  gcPauses as jvmGcPauses,
  gcPausesBetween as jvmGcPausesBetween,
  KAFKA_GC_LOG,
  type GcPauseKind,
  type GcPauseSummary,
} from '@lanner/dev-services';
import { createKafkaQueue, kafkaSocketFactory, parseKafkaBrokers, type QueuePort } from '@lanner/queue';
import { CONNECTED_WORKER_STALE_MS, openRepositories, type Repositories } from '@lanner/repository';
import { freePort } from '@lanner/testing';
import { Kafka, logLevel, Partitioners, type Consumer, type Message, type Producer } from 'kafkajs';
import { Client } from 'pg';
import { summariseProfile, type ProfileSummary } from './cpu-profile';
import { allCpus, busyCores, cpuPercent, cpuTicks, loadAverage, machineTicks, pinProcess, rssKb, runQueueWaitMs } from './proc';
import { PUBLISHED_AT_FIELD, type FromLoad, type LoadSettings, type LoadStats, type ToLoad } from './protocol';

const workspaceRoot = join(__dirname, '..', '..', '..');
/** Where the measured Lanner runs from: this working tree, or a snapshot of a commit (--source). */
let lannerRoot = workspaceRoot;
const STATE_FILE = join(workspaceRoot, '.dev-services', 'state.json');
const READY_DEADLINE_MS = 120_000;
const STOP_GRACE_MS = 20_000;

// --- options --------------------------------------------------------------------

interface Options {
  readonly workers: number;
  readonly queues: number;
  /** Jobs per second over all queues, one dispatch phase per rate (in this order). */
  readonly rates: number[];
  /** Seconds of the dispatch phase. */
  readonly duration: number;
  /** Fleet sizes at which memory is measured; the last is `workers`. */
  readonly steps: number[];
  readonly slots: number;
  readonly runMs: number;
  readonly streamsPerConnection: number;
  /** Quiet time before memory is read at each step (heartbeats keep flowing). */
  readonly settleMs: number;
  /** Streams opened before the memory baseline (they start the controller's queue consumers, a fixed cost). */
  readonly warm: number;
  readonly reconfigRounds: number;
  readonly reconfigTimeoutMs: number;
  /** How long the dispatch phase waits, after the last publish, for every job to reach a worker. */
  readonly drainTimeoutMs: number;
  /** `api`: topology written through the REST API; `direct`: through the repository plus a broadcast; `auto`: api when its routes answer. */
  readonly topology: 'auto' | 'api' | 'direct';
  readonly keepLogs: boolean;
  /** Also time a plain Kafka consumer of the job topics during the dispatch phase. */
  readonly kafkaProbe: boolean;
  /** Run the controller under `node --cpu-prof` and summarise its self time per dispatch phase. */
  readonly cpuProf: boolean;
  /** Extra node arguments for the controller (e.g. `--trace-gc`, or `-r` of allocation-sampler.cjs). */
  readonly controllerNodeArgs: string[];
  /**
   * CPUs (a `taskset` list) the controller gets to itself; the bench, the API,
   * the load process and the local broker and PostgreSQL share the others for
   * the run. Unset: everything shares every CPU.
   */
  readonly controllerCpus: string | undefined;
  readonly brokers: string;
  /** `worktree` (default): the roles run from this working tree; else a commit, run from a snapshot of it. */
  readonly source: string;
}

const USAGE = `usage: node tools/bench/fleet/run.js [--workers 2000] [--queues 20] [--rate 200 | --rate 20,200] [--duration 30]
  [--steps 500,1000] [--slots 4] [--run-ms 20] [--streams-per-connection 1] [--settle-ms 6000] [--warm 20]
  [--reconfig-rounds 3] [--reconfig-timeout-ms 15000] [--drain-timeout-ms 120000] [--topology auto|api|direct] [--source worktree|<commit>] [--kafka-probe true|false] [--cpu-prof] [--keep-logs]
  [--controller-node-args '--trace-gc'] [--controller-cpus 1]`;

function parseOptions(argv: readonly string[]): Options {
  const raw = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    if (arg === '--keep-logs' || arg === '--cpu-prof') {
      raw.set(arg.slice(2), 'true');
      continue;
    }
    if (!arg.startsWith('--') || i + 1 >= argv.length) throw new Error(`unexpected argument '${arg}'\n${USAGE}`);
    raw.set(arg.slice(2), argv[++i]);
  }
  const known = new Set([
    'workers',
    'queues',
    'rate',
    'duration',
    'steps',
    'slots',
    'run-ms',
    'streams-per-connection',
    'settle-ms',
    'warm',
    'reconfig-rounds',
    'reconfig-timeout-ms',
    'drain-timeout-ms',
    'topology',
    'keep-logs',
    'source',
    'kafka-probe',
    'cpu-prof',
    'controller-node-args',
    'controller-cpus',
  ]);
  for (const key of raw.keys()) if (!known.has(key)) throw new Error(`unknown option --${key}\n${USAGE}`);
  const int = (key: string, fallback: number, min: number, max: number): number => {
    const text = raw.get(key);
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < min || value > max)
      throw new Error(`--${key} must be a whole number from ${min} to ${max}, got '${text}'`);
    return value;
  };
  const workers = int('workers', 2000, 1, 20_000);
  const queues = int('queues', 20, 1, 99);
  const stepsText = raw.get('steps');
  let steps: number[];
  if (stepsText === undefined) steps = [500, 1000].filter((step) => step < workers);
  else {
    steps = stepsText.split(',').map((part) => Number(part.trim()));
    const bad = steps.find((step) => !Number.isInteger(step) || step < 1 || step >= workers);
    if (bad !== undefined) throw new Error(`--steps must be whole numbers below --workers (${workers}), got '${stepsText}'`);
  }
  steps = [...new Set([...steps, workers])].sort((a, b) => a - b);
  const topology = raw.get('topology') ?? 'auto';
  if (topology !== 'auto' && topology !== 'api' && topology !== 'direct')
    throw new Error(`--topology must be auto, api or direct, got '${topology}'`);
  return {
    workers,
    queues,
    rates: (raw.get('rate') ?? '200').split(',').map((part) => {
      const value = Number(part.trim());
      if (!Number.isInteger(value) || value < 1 || value > 100_000)
        throw new Error(
          `--rate must be whole numbers of jobs per second from 1 to 100000, comma-separated, got '${raw.get('rate')}'`,
        );
      return value;
    }),
    duration: int('duration', 30, 1, 3600),
    steps,
    slots: int('slots', 4, 1, 1024),
    runMs: int('run-ms', 20, 0, 60_000),
    streamsPerConnection: int('streams-per-connection', 1, 1, 10_000),
    settleMs: int('settle-ms', 6_000, 0, 600_000),
    warm: int('warm', 20, 0, 1000),
    reconfigRounds: int('reconfig-rounds', 3, 0, 100),
    reconfigTimeoutMs: int('reconfig-timeout-ms', 15_000, 1_000, 600_000),
    drainTimeoutMs: int('drain-timeout-ms', 120_000, 1_000, 3_600_000),
    topology,
    keepLogs: raw.get('keep-logs') === 'true',
    source: raw.get('source') ?? 'worktree',
    kafkaProbe: raw.get('kafka-probe') !== 'false',
    cpuProf: raw.get('cpu-prof') === 'true',
    controllerNodeArgs: (raw.get('controller-node-args') ?? '').split(/\s+/).filter(Boolean),
    controllerCpus: cpuListOption(raw.get('controller-cpus')),
    brokers: service('KAFKA_BROKERS'),
  };
}

/** `--controller-cpus`: a list of this machine's CPUs (`1`, `2-3`, `1,3`) that leaves at least one for the rest. */
function cpuListOption(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const count = cpus().length;
  const chosen = cpuIndexes(text, count);
  if (chosen === undefined || chosen.size === 0 || chosen.size >= count) {
    throw new Error(
      `--controller-cpus must list some of this machine's CPUs 0-${count - 1} (like 1, 2-3 or 1,3) and leave at least one out, got '${text}'`,
    );
  }
  return text;
}

function cpuIndexes(text: string, count: number): Set<number> | undefined {
  const chosen = new Set<number>();
  for (const part of text.split(',')) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!range) return undefined;
    const first = Number(range[1]);
    const last = range[2] === undefined ? first : Number(range[2]);
    if (last < first || last >= count) return undefined;
    for (let cpu = first; cpu <= last; cpu++) chosen.add(cpu);
  }
  return chosen;
}

/** The CPUs not in `cpuList`, as a `taskset` list. */
function otherCpus(cpuList: string): string {
  const count = cpus().length;
  const chosen = cpuIndexes(cpuList, count) ?? new Set<number>();
  return Array.from({ length: count }, (_, cpu) => cpu)
    .filter((cpu) => !chosen.has(cpu))
    .join(',');
}

// --- small helpers -------------------------------------------------------------------

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function log(line: string): void {
  process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

/** The pid of the Kafka broker (or PostgreSQL) the dev services run on this machine, if they do (and its variable is not set elsewhere). */
function localServicePid(name: 'kafka' | 'postgres'): number | undefined {
  if (process.env[name === 'kafka' ? 'KAFKA_BROKERS' : 'DATABASE_URL']?.trim()) return undefined;
  try {
    const state = JSON.parse(readFileSync(STATE_FILE, 'utf8')) as {
      services?: Record<string, { handle?: { kind?: string; pid?: number } }>;
    };
    const handle = state.services?.[name]?.handle;
    return handle?.kind === 'process' && typeof handle.pid === 'number' ? handle.pid : undefined;
  } catch {
    return undefined;
  }
}

/** KAFKA_BROKERS / DATABASE_URL from the environment, else from the dev services' state file. */
function service(variable: 'KAFKA_BROKERS' | 'DATABASE_URL'): string {
  const fromEnv = process.env[variable]?.trim();
  if (fromEnv) return fromEnv;
  try {
    const state = JSON.parse(readFileSync(STATE_FILE, 'utf8')) as { services?: Record<string, { connection?: string }> };
    const recorded = state.services?.[variable === 'KAFKA_BROKERS' ? 'kafka' : 'postgres']?.connection;
    if (recorded) return recorded;
  } catch {
    // Falls through to the error below.
  }
  throw new Error(
    `${variable} is not set and ${STATE_FILE} has no ${variable === 'KAFKA_BROKERS' ? 'kafka' : 'postgres'} connection: start the dev services (\`npm run services:up\`) or export ${variable}`,
  );
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)];
}

function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

const round1 = (value: number): number => Math.round(value * 10) / 10;

// --- run-scoped resources, released by cleanup() -----------------------------------

const run = `${process.pid}-${randomBytes(3).toString('hex')}`;
const kafkaNamespace = `bench-fleet-${run}.`;
const databaseName = `lanner_bench_fleet_${run.replace('-', '_')}`;
const workDir = mkdtempSync(join(tmpdir(), 'lanner-bench-fleet-'));

interface RoleChild {
  readonly name: string;
  readonly child: ChildProcess;
  readonly httpPort: number;
  readonly logFile: string;
  readonly exited: Promise<number | null>;
}

const resources: {
  serverUrl?: string;
  databaseCreated?: boolean;
  repositories?: Repositories;
  queue?: QueuePort;
  topics: string[];
  roles: RoleChild[];
  load?: ChildProcess;
  producer?: Producer;
  probe?: Consumer;
  /** Dev-service processes pinned for the run, given every CPU back at the end. */
  pinned: { pid: number; withChildren: boolean }[];
} = { topics: [], roles: [], pinned: [] };

let cleaning: Promise<void> | undefined;

function cleanup(keepLogs: boolean): Promise<void> {
  cleaning ??= (async () => {
    for (const { pid, withChildren } of resources.pinned.splice(0)) {
      try {
        pinProcess(pid, allCpus(), withChildren);
      } catch (error) {
        log(`could not give process ${pid} every CPU back: ${messageOf(error)}`);
      }
    }
    const load = resources.load;
    if (load && load.exitCode === null) {
      load.send({ type: 'close' } satisfies ToLoad, () => undefined);
      await Promise.race([new Promise((resolve) => load.once('exit', resolve)), pause(5_000)]);
      if (load.exitCode === null) load.kill('SIGKILL');
    }
    await Promise.all(
      resources.roles.map(async (role) => {
        if (role.child.exitCode !== null || role.child.signalCode !== null) return;
        role.child.kill('SIGTERM');
        const stuck = setTimeout(() => role.child.kill('SIGKILL'), STOP_GRACE_MS);
        await role.exited;
        clearTimeout(stuck);
      }),
    );
    await resources.producer?.disconnect().catch(() => undefined);
    await resources.probe?.disconnect().catch(() => undefined);
    await resources.repositories?.close().catch(() => undefined);
    if (resources.queue) {
      await resources.queue
        .deleteTopics([...resources.topics, ...spineTopics(RESERVED_WORKER_QUEUE_IDS)])
        .catch((error: unknown) => log(`could not delete the bench topics: ${messageOf(error)}`));
      await resources.queue.close().catch(() => undefined);
    }
    await deleteConsumerGroups().catch((error: unknown) =>
      log(`could not delete the bench consumer groups: ${messageOf(error)}`),
    );
    if (resources.serverUrl && resources.databaseCreated) {
      await withAdmin(resources.serverUrl, (client) =>
        client.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`),
      ).catch((error: unknown) => log(`could not drop database ${databaseName}: ${messageOf(error)}`));
    }
    if (keepLogs) log(`logs kept in ${workDir}`);
    else rmSync(workDir, { recursive: true, force: true });
  })();
  return cleaning;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function withAdmin<T>(serverUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The bench database's counters (transactions, rows written), to tell how much database work a job costs. */
async function databaseCounters(): Promise<{ transactions: number; rowsWritten: number } | undefined> {
  if (!resources.serverUrl) return undefined;
  try {
    return await withAdmin(resources.serverUrl, async (client) => {
      const { rows } = await client.query<{ xact_commit: string; written: string }>(
        'SELECT xact_commit, tup_inserted + tup_updated + tup_deleted AS written FROM pg_stat_database WHERE datname = $1',
        [databaseName],
      );
      return rows[0] ? { transactions: Number(rows[0].xact_commit), rowsWritten: Number(rows[0].written) } : undefined;
    });
  } catch {
    return undefined;
  }
}

/** The consumer groups the run's roles made, all under its namespace. */
async function deleteConsumerGroups(): Promise<void> {
  const admin = new Kafka({
    clientId: `bench-fleet-${run}-admin`,
    brokers: parseKafkaBrokers(service('KAFKA_BROKERS')),
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    const { groups } = await admin.listGroups();
    const ours = groups.map((group) => group.groupId).filter((groupId) => groupId.startsWith(kafkaNamespace));
    // A member that just left may still be listed for a moment (GROUP_NOT_EMPTY): try again a few times.
    for (let attempt = 1; ours.length > 0; attempt++) {
      try {
        await admin.deleteGroups(ours);
        return;
      } catch (error) {
        const failed = ((error as { groups?: { groupId: string; errorCode: number }[] }).groups ?? []).filter(
          (group) => group.errorCode !== 0,
        );
        if (attempt >= 20)
          throw new Error(
            `${messageOf(error)}: ${failed.map((group) => `${group.groupId} (error code ${group.errorCode})`).join(', ')}`,
          );
        ours.splice(0, ours.length, ...failed.map((group) => group.groupId));
        await pause(2_000);
      }
    }
  } finally {
    await admin.disconnect();
  }
}

// --- role processes ---------------------------------------------------------------

/** `roles.<role>.nodeOptions` of the Helm chart: the bench runs a role as the chart deploys it. */
function helmNodeOptions(root: string, role: string): string | undefined {
  const values = parseYaml(readFileSync(join(root, 'deploy', 'helm', 'lanner', 'values.yaml'), 'utf8')) as {
    roles?: Record<string, { nodeOptions?: unknown }>;
  };
  const nodeOptions = values.roles?.[role]?.nodeOptions;
  return typeof nodeOptions === 'string' && nodeOptions.trim() !== '' ? nodeOptions : undefined;
}

function startRole(
  name: string,
  role: 'controller' | 'api',
  httpPort: number,
  env: NodeJS.ProcessEnv,
  nodeArgs: string[] = [],
  cpuList?: string,
): RoleChild {
  const logFile = join(workDir, `${name}.log`);
  const output = openSync(logFile, 'a');
  const command = [process.execPath, ...nodeArgs, join(lannerRoot, 'bin', 'lanner.js'), 'server', role];
  // taskset execs node, so the child's pid is the role's, pinned from its first instruction.
  if (cpuList !== undefined) command.unshift('taskset', '-c', cpuList);
  let child: ChildProcess;
  try {
    child = spawn(command[0], command.slice(1), {
      cwd: lannerRoot,
      env: {
        ...process.env,
        SWC_NODE_PROJECT: join(lannerRoot, 'tsconfig.base.json'),
        LANNER_LOG_LEVEL: 'info',
        KAFKAJS_NO_PARTITIONER_WARNING: '1',
        LANNER_HTTP_HOST: '127.0.0.1',
        LANNER_HTTP_PORT: String(httpPort),
        ...env,
      },
      stdio: ['ignore', output, output],
    });
  } finally {
    closeSync(output);
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started: RoleChild = { name, child, httpPort, logFile, exited };
  resources.roles.push(started);
  return started;
}

function logLines(role: RoleChild, text: string): Record<string, unknown>[] {
  return readFileSync(role.logFile, 'utf8')
    .split('\n')
    .filter((line) => line.includes(text))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

function tail(role: RoleChild, lines = 20): string {
  return readFileSync(role.logFile, 'utf8')
    .split('\n')
    .filter((line) => !line.includes('/health/'))
    .slice(-lines)
    .join('\n');
}

async function waitUntil<T>(
  what: string,
  deadlineMs: number,
  probe: () => T | undefined | Promise<T | undefined>,
  everyMs = 200,
): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await pause(everyMs);
  }
}

async function waitReady(role: RoleChild): Promise<void> {
  await waitUntil(
    `${role.name} to answer /health/ready`,
    READY_DEADLINE_MS,
    async () => {
      if (role.child.exitCode !== null)
        throw new Error(`${role.name} exited (code ${role.child.exitCode}) before it was ready:\n${tail(role)}`);
      try {
        const response = await fetch(`http://127.0.0.1:${role.httpPort}/health/ready`, { signal: AbortSignal.timeout(5_000) });
        await response.text();
        return response.status === 200 ? true : undefined;
      } catch {
        return undefined;
      }
    },
    300,
  );
}

/** Event-loop delay of the role since its last /metrics scrape (prom-client resets the histogram on each). */
async function eventLoopLag(role: RoleChild): Promise<{ p99Ms?: number; maxMs?: number }> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${role.httpPort}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
    const value = (name: string): number | undefined => {
      const line = text.split('\n').find((candidate) => new RegExp(`^\\w*${name}[{ ]`).test(candidate));
      return line ? round1(Number(line.trim().split(' ').pop()) * 1000) : undefined;
    };
    return { p99Ms: value('nodejs_eventloop_lag_p99_seconds'), maxMs: value('nodejs_eventloop_lag_max_seconds') };
  } catch {
    return {};
  }
}

/** Per GC kind (`minor`: scavenges, `major`: mark-compacts, `incremental`, `weakcb`): pauses, their total and how many took over 10 ms. */
type GcPauses = Record<string, { readonly count: number; readonly totalMs: number; readonly over10Ms: number }>;

/**
 * The role's garbage-collection pauses so far, from prom-client's
 * `nodejs_gc_duration_seconds` histogram (cumulative; the bench subtracts two
 * readings). Its buckets only tell pauses over 10 ms apart, not their maximum.
 */
async function gcPauses(role: RoleChild): Promise<GcPauses | undefined> {
  let text: string;
  try {
    text = await (await fetch(`http://127.0.0.1:${role.httpPort}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
  } catch {
    return undefined;
  }
  const pauses: Record<string, { count: number; totalMs: number; over10Ms: number }> = {};
  const of = (kind: string) => (pauses[kind] ??= { count: 0, totalMs: 0, over10Ms: 0 });
  for (const line of text.split('\n')) {
    const match = /^\w*nodejs_gc_duration_seconds_(count|sum|bucket)\{([^}]*)\} (\S+)$/.exec(line.trim());
    if (!match) continue;
    const labels = match[2];
    const kind = /kind="([^"]+)"/.exec(labels)?.[1];
    if (kind === undefined) continue;
    const value = Number(match[3]);
    if (match[1] === 'count') {
      of(kind).count = value;
      of(kind).over10Ms += value;
    } else if (match[1] === 'sum') of(kind).totalMs = value * 1000;
    else if (/le="0\.01"/.test(labels)) of(kind).over10Ms -= value;
  }
  return pauses;
}

/** What happened between two `gcPauses` readings, kinds without a pause left out. */
function gcPausesBetween(before: GcPauses | undefined, after: GcPauses | undefined): GcPauses | undefined {
  if (before === undefined || after === undefined) return undefined;
  const between: Record<string, { count: number; totalMs: number; over10Ms: number }> = {};
  for (const [kind, now] of Object.entries(after)) {
    const then = before[kind] ?? { count: 0, totalMs: 0, over10Ms: 0 };
    if (now.count === then.count) continue;
    between[kind] = {
      count: now.count - then.count,
      totalMs: round1(now.totalMs - then.totalMs),
      over10Ms: now.over10Ms - then.over10Ms,
    };
  }
  return between;
}

/** The local broker's pauses that began from `fromMs` to `toMs`, from the GC log the dev services have it write; undefined without one. */
function brokerGcPauses(fromMs: number, toMs: number): Record<GcPauseKind, GcPauseSummary> | undefined {
  try {
    return jvmGcPausesBetween(jvmGcPauses(readFileSync(KAFKA_GC_LOG, 'utf8')), fromMs, toMs);
  } catch {
    return undefined;
  }
}

function brokerGcText(pauses: Record<GcPauseKind, GcPauseSummary> | undefined): string {
  if (pauses === undefined) return '?';
  const kinds = Object.entries(pauses).filter(([, { count }]) => count > 0);
  if (kinds.length === 0) return 'none';
  return kinds.map(([kind, { count, totalMs, maxMs }]) => `${kind} ${count} (${totalMs} ms, max ${maxMs} ms)`).join(', ');
}

/** The heap and collector options of the local broker's JVM, from its command line. */
function brokerJvmText(pid: number): string {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const memoryAndGc = args.filter(
      (arg) => /^-Xm[sx]/.test(arg) || /^-XX:[+-]?(Use\w+GC|MaxGCPauseMillis|InitiatingHeapOccupancyPercent)/.test(arg),
    );
    return memoryAndGc.join(' ') || 'JVM defaults';
  } catch {
    return '?';
  }
}

function gcText(pauses: GcPauses | undefined): string {
  if (pauses === undefined) return '?';
  const kinds = Object.entries(pauses);
  if (kinds.length === 0) return 'none';
  return kinds
    .map(([kind, { count, totalMs, over10Ms }]) => `${kind} ${count} (${totalMs} ms, ${over10Ms} over 10 ms)`)
    .join(', ');
}

/**
 * The controller's own share of the dispatch latency: its histogram
 * `lanner_controller_dispatch_latency_seconds{since="taken"}` (taken off the
 * topic -> Job frame written), cumulative counts per bucket bound in seconds,
 * summed over every worker group and queue.
 */
async function takenLatencyBuckets(
  role: RoleChild,
  since: 'taken' | 'queued' = 'taken',
): Promise<Map<number, number> | undefined> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${role.httpPort}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
    const buckets = new Map<number, number>();
    for (const line of text.split('\n')) {
      if (!line.startsWith('lanner_controller_dispatch_latency_seconds_bucket{') || !line.includes(`since="${since}"`)) continue;
      const bound = /le="([^"]+)"/.exec(line)?.[1];
      if (bound === undefined) continue;
      const le = bound === '+Inf' ? Number.POSITIVE_INFINITY : Number(bound);
      buckets.set(le, (buckets.get(le) ?? 0) + Number(line.trim().split(' ').pop()));
    }
    return buckets;
  } catch {
    return undefined;
  }
}

/** Over a phase (bucket counts after minus before): the share sent within 25 ms, and the bucket bound p99 falls under. */
function takenLatencySummary(
  before: Map<number, number> | undefined,
  after: Map<number, number> | undefined,
): { within25MsPercent?: number; p99AtMostMs?: number } {
  if (!before || !after) return {};
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const count = (le: number) => (after.get(le) ?? 0) - (before.get(le) ?? 0);
  const total = count(Number.POSITIVE_INFINITY);
  if (total <= 0) return {};
  const p99Bound = bounds.find((le) => count(le) >= total * 0.99);
  return {
    within25MsPercent: round1((count(0.025) / total) * 100),
    p99AtMostMs: p99Bound === undefined || !Number.isFinite(p99Bound) ? undefined : p99Bound * 1000,
  };
}

/** V8 heap in use, from the role's /metrics (prom-client default metrics), and how long that scrape took (ms). */
async function heapUsedKb(role: RoleChild): Promise<{ kb: number | undefined; scrapeMs: number | undefined }> {
  try {
    const startedAt = performance.now();
    const text = await (await fetch(`http://127.0.0.1:${role.httpPort}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
    const scrapeMs = round1(performance.now() - startedAt);
    const line = text.split('\n').find((candidate) => /^\w*nodejs_heap_size_used_bytes[{ ]/.test(candidate));
    return { kb: line ? Math.round(Number(line.trim().split(' ').pop()) / 1024) : undefined, scrapeMs };
  } catch {
    return { kb: undefined, scrapeMs: undefined };
  }
}

// --- the load process ------------------------------------------------------------------

class LoadProcess {
  private readonly waiting: { type: FromLoad['type']; resolve: (message: FromLoad) => void }[] = [];
  readonly child: ChildProcess;

  constructor(settings: LoadSettings) {
    this.child = fork(join(__dirname, 'load.ts'), [], {
      cwd: workspaceRoot,
      execArgv: ['-r', '@swc-node/register'],
      env: {
        ...process.env,
        SWC_NODE_PROJECT: process.env['SWC_NODE_PROJECT'] ?? join(workspaceRoot, 'tsconfig.base.json'),
        FLEET_LOAD_SETTINGS: JSON.stringify(settings),
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    resources.load = this.child;
    this.child.on('message', (message: FromLoad) => {
      if (message.type === 'failed') {
        log(`load process: ${message.message}`);
        return;
      }
      const index = this.waiting.findIndex((waiter) => waiter.type === message.type);
      if (index >= 0) this.waiting.splice(index, 1)[0].resolve(message);
    });
  }

  private next<T extends FromLoad['type']>(type: T, timeoutMs = 120_000): Promise<Extract<FromLoad, { type: T }>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the load process did not answer '${type}' within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiting.push({
        type,
        resolve: (message) => {
          clearTimeout(timer);
          resolve(message as Extract<FromLoad, { type: T }>);
        },
      });
    });
  }

  ready(): Promise<unknown> {
    return this.next('ready');
  }

  async open(total: number): Promise<void> {
    const answer = this.next('opened');
    this.child.send({ type: 'open', total } satisfies ToLoad);
    await answer;
  }

  async stats(withLatencies = false): Promise<LoadStats> {
    const answer = this.next('stats');
    this.child.send({ type: 'stats', withLatencies } satisfies ToLoad);
    return (await answer).stats;
  }

  tell(message: ToLoad): void {
    this.child.send(message);
  }
}

// --- topology: through the API when its routes exist, else repository + broadcast -----------

const queueIds = (count: number): string[] => Array.from({ length: count }, (_, i) => `bench-q${String(i + 1).padStart(2, '0')}`);

interface Topology {
  readonly path: 'api' | 'direct';
  putQueue(id: string): Promise<void>;
  /** Sets the default group's subscription of `queueId` (percent 0: no reservation). */
  putSubscription(queueId: string, reservedPercent: number): Promise<void>;
}

function directTopology(repositories: Repositories, queue: QueuePort): Topology {
  return {
    path: 'direct',
    async putQueue(id) {
      await repositories.workerQueues.put({ id, tags: [id] });
      await queue.createTopics([{ topic: workerJobsTopic(id), partitions: DEFAULT_TOPIC_PARTITIONS }]);
    },
    async putSubscription(queueId, reservedPercent) {
      await repositories.workerGroups.putSubscription(DEFAULT_WORKER_GROUP_ID, {
        workerQueueId: queueId,
        reservedPercent: reservedPercent === 0 ? null : reservedPercent,
        mode: 'ELASTIC',
      });
      const group = await repositories.workerGroups.get(DEFAULT_WORKER_GROUP_ID);
      await queue.publish(QueueTopics.broadcast, [
        encodeQueueMessage(broadcastCodec, {
          schemaVersion: 1,
          messageId: `bench-fleet-${run}-subscriptions-${Date.now()}`,
          type: 'broadcast.subscriptions-changed',
          occurredAt: new Date().toISOString(),
          payload: {
            workerGroupId: DEFAULT_WORKER_GROUP_ID,
            subscriptions: group.subscriptions.map((subscription) => ({
              workerQueueId: subscription.workerQueueId,
              ...(subscription.reservedPercent === null ? {} : { reservedPercent: subscription.reservedPercent }),
              mode: subscription.mode,
            })),
          },
        }),
      ]);
    },
  };
}

function apiTopology(baseUrl: string, adminToken: string): Topology {
  const put = async (path: string, body: unknown): Promise<number> => {
    const response = await fetch(`${baseUrl}/api/v1${path}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    if (response.status >= 300) throw new ApiRefused(path, response.status, text.slice(0, 300));
    return response.status;
  };
  return {
    path: 'api',
    async putQueue(id) {
      await put(`/instance/worker-queues/${id}`, { tags: [id] });
    },
    async putSubscription(queueId, reservedPercent) {
      await put(
        `/instance/worker-groups/${DEFAULT_WORKER_GROUP_ID}/subscriptions/${queueId}`,
        reservedPercent === 0 ? { mode: 'ELASTIC' } : { reservedPercent, mode: 'ELASTIC' },
      );
    },
  };
}

class ApiRefused extends Error {
  constructor(
    readonly path: string,
    readonly status: number,
    body: string,
  ) {
    super(`PUT /api/v1${path} answered HTTP ${status}: ${body}`);
  }
}

// --- measurements ---------------------------------------------------------------------

interface MemoryStep {
  readonly workers: number;
  readonly welcomed: number;
  readonly controllerRssKb: number;
  readonly controllerHeapUsedKb: number | undefined;
  /** (RSS at this size - RSS with the warm-up streams) / (this size - warm-up streams): the cost of one more idle stream. */
  readonly kbPerStreamRss: number;
  readonly kbPerStreamHeap: number | undefined;
  /** (RSS at this size - RSS before any stream) / this size: includes the fixed cost of the queue consumers the first worker starts. */
  readonly kbPerStreamRssFromEmpty: number;
  readonly loadRssKb: number;
  readonly controllerCpuPercentIdle: number;
  readonly loadCpuPercentIdle: number;
  readonly connectSeconds: number;
  /** Median time of a GET /metrics of the controller at this size (a Prometheus scrape pauses dispatch that long). */
  readonly metricsScrapeMs: number | undefined;
}

/** Median of a few readings, `everyMs` apart, of the controller's RSS and heap. */
async function sampleController(
  controller: RoleChild,
  pid: number,
  samples = 5,
  everyMs = 500,
): Promise<{ rssKb: number; heapUsedKb: number | undefined; scrapeMs: number | undefined }> {
  const rss: number[] = [];
  const heap: number[] = [];
  const scrapes: number[] = [];
  for (let i = 0; i < samples; i++) {
    rss.push(rssKb(pid));
    const used = await heapUsedKb(controller);
    if (used.kb !== undefined) heap.push(used.kb);
    if (used.scrapeMs !== undefined) scrapes.push(used.scrapeMs);
    await pause(everyMs);
  }
  return {
    rssKb: median(rss),
    heapUsedKb: heap.length > 0 ? median(heap) : undefined,
    scrapeMs: scrapes.length > 0 ? median(scrapes) : undefined,
  };
}

interface DispatchResult {
  readonly workers: number;
  readonly targetRatePerSecond: number;
  readonly published: number;
  readonly received: number;
  readonly publishSeconds: number;
  readonly achievedRatePerSecond: number;
  /** Publish -> acknowledged by Kafka, per batch (the bench's own share of the latency). */
  readonly publishAckP50Ms: number;
  readonly publishAckP99Ms: number;
  /** Publish -> consumed by a plain kafkajs consumer of the same topics (no controller work). */
  readonly kafkaProbe?: { consumed: number; p50Ms: number; p95Ms: number; p99Ms: number };
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly p99AfterFirst5sMs: number;
  readonly controllerCpuPercent: number;
  readonly loadCpuPercent: number;
  /** Cores the whole machine kept busy over the phase (every process: the controller, Kafka, PostgreSQL, the load, the bench). */
  readonly machineBusyCores: number;
  /** The local Kafka broker's CPU over the phase, when the dev services run it here. */
  readonly brokerCpuPercent?: number;
  /** The local broker's JVM pauses that began in the phase, per kind, from its GC log (when the dev services run it here). */
  readonly brokerGc?: Record<GcPauseKind, GcPauseSummary>;
  /** The load process's own event-loop delay over the phase: how late it may have read a Job frame. */
  readonly loadEventLoopDelayP99Ms: number;
  readonly loadEventLoopDelayMaxMs: number;
  /**
   * This process's own event-loop delay and GC pauses over the phase: it stamps each job's
   * publish time and then writes it to Kafka, so a stall here between the two is in the
   * job's latency (and in its publish acknowledgement).
   */
  readonly publisherEventLoopDelayP99Ms: number;
  readonly publisherEventLoopDelayMaxMs: number;
  readonly publisherGcPauses: { readonly count: number; readonly totalMs: number; readonly maxMs: number };
  readonly controllerRssKbAfter: number;
  /** ms per wall second the controller's event-loop thread waited for a CPU (schedstat). */
  readonly controllerRunQueueWaitMsPerSecond: number;
  /** The controller's event-loop delay over the phase (prom-client's histogram, reset at the phase start). */
  readonly controllerEventLoopLagP99Ms?: number;
  readonly controllerEventLoopLagMaxMs?: number;
  /** The controller's garbage-collection pauses during the phase, per kind (prom-client's `nodejs_gc_duration_seconds`). */
  readonly controllerGc?: GcPauses;
  /** The controller's own part (taken off the topic -> Job frame written), from its histogram: share within 25 ms. */
  readonly controllerTakenToSentWithin25MsPercent?: number;
  /** ...and the histogram bucket bound (ms) under which 99 % of the phase's jobs were sent. */
  readonly controllerTakenToSentP99AtMostMs?: number;
  /** Published (the job message's time) -> Job frame written, from the controller's histogram (since="queued"): Kafka delivery included, the worker's side not. */
  readonly controllerPublishedToSentWithin25MsPercent?: number;
  readonly controllerPublishedToSentP99AtMostMs?: number;
  /** The run's database over the phase (every role's statements; the controller's are most of them): per job received. */
  readonly database?: { readonly transactionsPerJob: number; readonly rowsWrittenPerJob: number };
  /** The machine's load average at the start and at the end of the phase. */
  readonly loadAverage: string;
  /** Epoch ms of the phase's first publish and of its end (for the CPU profile). */
  readonly windowFromMs: number;
  readonly windowToMs: number;
  /** With --cpu-prof: the controller's self time over the phase. */
  profile?: ProfileSummary;
  /** From the controller's log: median ms between two dispatches of one busy queue. */
  readonly queueServiceMsP50?: number;
  /** From the controller's log: jobs sent per second in its busiest 5 s. */
  readonly controllerJobsPerSecondPeak?: number;
}

/**
 * The bench's own producer for the jobs (kafkajs, acks from all in-sync replicas like the
 * queue adapter), without the adapter's one-request-in-flight limit, so the bench's own
 * publishing never queues behind itself: one batch per tick covers every queue.
 */
async function jobProducer(brokers: string): Promise<Producer> {
  // Its connections are those of Lanner's own clients, as the executor's job publishing goes through them.
  const producer = new Kafka({
    clientId: `bench-fleet-${run}-jobs`,
    brokers: parseKafkaBrokers(brokers),
    logLevel: logLevel.NOTHING,
    socketFactory: kafkaSocketFactory,
  }).producer({
    createPartitioner: Partitioners.DefaultPartitioner,
    allowAutoTopicCreation: false,
  });
  await producer.connect();
  resources.producer = producer;
  return producer;
}

/**
 * A plain kafkajs consumer of the same job topics in a group of its own (the queue
 * adapter's fetch wait of 1 s, and its connections), recording publish -> message consumed: the Kafka leg of
 * the dispatch latency on this machine right now, without the controller's work. Every
 * partition is handled at once and nothing is committed: one partition at a time with a
 * commit after each batch made the probe itself the bottleneck at 200 jobs/s (p50 over
 * 200 ms while the controller took 97 % of the jobs within 25 ms of their publish).
 */
async function kafkaProbe(brokers: string, queues: readonly string[]): Promise<{ latencies: number[]; close(): Promise<void> }> {
  const latencies: number[] = [];
  const consumer = new Kafka({
    clientId: `bench-fleet-${run}-probe`,
    brokers: parseKafkaBrokers(brokers),
    logLevel: logLevel.NOTHING,
    socketFactory: kafkaSocketFactory,
  }).consumer({
    groupId: `${kafkaNamespace}bench-fleet-probe`,
    maxWaitTimeInMs: 1_000,
    allowAutoTopicCreation: false,
  });
  resources.probe = consumer;
  const fetched = new Promise<void>((resolve) => consumer.on(consumer.events.FETCH, () => resolve()));
  await consumer.connect();
  await consumer.subscribe({ topics: queues.map((id) => `${kafkaNamespace}${workerJobsTopic(id)}`), fromBeginning: false });
  await consumer.run({
    autoCommit: false,
    partitionsConsumedConcurrently: queues.length * DEFAULT_TOPIC_PARTITIONS,
    eachMessage: async ({ message }) => {
      const now = Date.now();
      try {
        const job = decodeQueueMessage(workerJobCodec, message.value as Buffer);
        const publishedAt = job.payload.taskDefinition[PUBLISHED_AT_FIELD];
        if (typeof publishedAt === 'number') latencies.push(now - publishedAt);
      } catch {
        // Not a bench job.
      }
    },
  });
  await fetched;
  return {
    latencies,
    async close() {
      await consumer.disconnect();
      resources.probe = undefined;
    },
  };
}

async function dispatchPhase(
  options: Options,
  rate: number,
  producer: Producer,
  load: LoadProcess,
  controller: RoleChild,
  queues: readonly string[],
  workers: number,
): Promise<DispatchResult> {
  const controllerPid = controller.child.pid as number;
  const logOffset = statSync(controller.logFile).size;
  const probe = options.kafkaProbe ? await kafkaProbe(options.brokers, queues) : undefined;
  load.tell({ type: 'reset-latencies' });
  const before = await load.stats();
  const controllerTicks = cpuTicks(controllerPid);
  const controllerWaitMs = runQueueWaitMs(controllerPid);
  await eventLoopLag(controller); // resets the controller's event-loop histogram
  const gcBefore = await gcPauses(controller);
  const databaseBefore = await databaseCounters();
  const machineBefore = machineTicks();
  const brokerPid = localServicePid('kafka');
  const brokerTicks = brokerPid === undefined ? undefined : cpuTicks(brokerPid);
  const takenBefore = await takenLatencyBuckets(controller);
  const queuedBefore = await takenLatencyBuckets(controller, 'queued');
  const loadAtStart = loadAverage();
  const publisherLoop = monitorEventLoopDelay({ resolution: 10 });
  publisherLoop.enable();
  const publisherGc: number[] = [];
  const publisherGcObserver = new PerformanceObserver((entries) =>
    entries.getEntries().forEach((entry) => publisherGc.push(entry.duration)),
  );
  publisherGcObserver.observe({ entryTypes: ['gc'] });
  const startedAt = Date.now();
  const total = Math.round(rate * options.duration);
  const publishing: Promise<void>[] = [];
  const ackMs: number[] = [];
  let sent = 0;
  let publishFailures = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((Date.now() - startedAt) * rate) / 1000) + 1);
    const byTopic = new Map<string, Message[]>();
    const now = Date.now();
    const first = sent;
    for (; sent < due; sent++) {
      const queueId = queues[sent % queues.length];
      // Unique across phases, as task run ids are across executions: the store refuses an attempt it saw end.
      const taskRunId = `fleet-${run}-${startedAt.toString(36)}-tr-${sent}`;
      const record = encodeQueueMessage(workerJobCodec, {
        schemaVersion: 1,
        messageId: jobMessageId(taskRunId, 1),
        type: 'worker.job',
        occurredAt: new Date(now).toISOString(),
        correlationId: `fleet-${run}-${sent}`,
        payload: {
          tenantId: DEFAULT_TENANT_ID,
          executionId: `fleet-${run}-ex-${sent}`,
          taskRunId,
          attempt: 1,
          workerQueueId: queueId,
          namespace: 'bench.fleet',
          flowId: 'fleet',
          taskId: 'simulated',
          taskType: 'io.kestra.plugin.core.log.Log',
          taskDefinition: {
            id: 'simulated',
            type: 'io.kestra.plugin.core.log.Log',
            message: 'fleet bench',
            [PUBLISHED_AT_FIELD]: now,
          },
          timeoutMs: 60_000,
        },
      });
      const topic = `${kafkaNamespace}${workerJobsTopic(queueId)}`;
      const list = byTopic.get(topic) ?? [];
      list.push({ key: record.key, value: record.value, headers: record.headers });
      byTopic.set(topic, list);
    }
    const count = sent - first;
    if (count > 0) {
      publishing.push(
        producer
          .sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) })
          .then(() => void ackMs.push(Date.now() - now))
          .catch((error: unknown) => {
            if (publishFailures === 0) log(`publish failed: ${messageOf(error)}`);
            publishFailures += count;
          }),
      );
    }
    await pause(5);
  }
  await Promise.all(publishing);
  publisherLoop.disable();
  publisherGcObserver.disconnect();
  const publishSeconds = (Date.now() - startedAt) / 1000;
  const expected = before.jobsReceived + total - publishFailures;
  let after = await load.stats();
  const drainDeadline = Date.now() + options.drainTimeoutMs;
  while (after.jobsReceived < expected && Date.now() < drainDeadline) {
    await pause(250);
    after = await load.stats();
  }
  const wallMs = Date.now() - startedAt;
  const machineCores = busyCores(machineBefore, machineTicks(), cpus().length);
  const brokerCpu =
    brokerPid === undefined || brokerTicks === undefined ? undefined : cpuPercent(brokerTicks, cpuTicks(brokerPid), wallMs);
  const brokerGc = brokerPid === undefined ? undefined : brokerGcPauses(startedAt, startedAt + wallMs);
  const controllerCpu = cpuPercent(controllerTicks, cpuTicks(controllerPid), wallMs);
  const waitedMsPerSecond = (runQueueWaitMs(controllerPid) - controllerWaitMs) / (wallMs / 1000);
  const lag = await eventLoopLag(controller);
  const gc = gcPausesBetween(gcBefore, await gcPauses(controller));
  const taken = takenLatencySummary(takenBefore, await takenLatencyBuckets(controller));
  const queued = takenLatencySummary(queuedBefore, await takenLatencyBuckets(controller, 'queued'));
  // PostgreSQL publishes its counters within a second or so of each transaction.
  await pause(1_000);
  const databaseAfter = await databaseCounters();
  const received = after.jobsReceived - before.jobsReceived;
  const database =
    databaseBefore && databaseAfter && received > 0
      ? {
          transactionsPerJob: round1((databaseAfter.transactions - databaseBefore.transactions) / received),
          rowsWrittenPerJob: round1((databaseAfter.rowsWritten - databaseBefore.rowsWritten) / received),
        }
      : undefined;
  const loadCpu = cpuPercent(before.cpuTicks, after.cpuTicks, wallMs);
  const withLatencies = await load.stats(true);
  const arrival = withLatencies.latenciesMs ?? [];
  const latencies = [...arrival].sort((a, b) => a - b);
  // Samples are in arrival order; the first 5 s' worth is cut to see the steady state.
  const steady = arrival.slice(Math.min(arrival.length, Math.round(rate * 5))).sort((a, b) => a - b);
  const acks = ackMs.sort((a, b) => a - b);
  await pause(1_000);
  const probed = [...(probe?.latencies ?? [])].sort((a, b) => a - b);
  await probe?.close();
  if (publishFailures > 0) log(`${publishFailures} job(s) could not be published`);
  return {
    workers,
    targetRatePerSecond: rate,
    published: total - publishFailures,
    received: after.jobsReceived - before.jobsReceived,
    publishSeconds: round1(publishSeconds),
    achievedRatePerSecond: round1((total - publishFailures) / publishSeconds),
    publishAckP50Ms: round1(percentile(acks, 50)),
    publishAckP99Ms: round1(percentile(acks, 99)),
    kafkaProbe: probe
      ? {
          consumed: probed.length,
          p50Ms: round1(percentile(probed, 50)),
          p95Ms: round1(percentile(probed, 95)),
          p99Ms: round1(percentile(probed, 99)),
        }
      : undefined,
    p50Ms: round1(percentile(latencies, 50)),
    p95Ms: round1(percentile(latencies, 95)),
    p99Ms: round1(percentile(latencies, 99)),
    maxMs: round1(latencies[latencies.length - 1] ?? Number.NaN),
    p99AfterFirst5sMs: round1(percentile(steady, 99)),
    controllerCpuPercent: round1(controllerCpu),
    loadCpuPercent: round1(loadCpu),
    loadEventLoopDelayP99Ms: after.eventLoopDelayP99Ms,
    machineBusyCores: Math.round(machineCores * 100) / 100,
    brokerCpuPercent: brokerCpu === undefined ? undefined : round1(brokerCpu),
    brokerGc,
    loadEventLoopDelayMaxMs: after.eventLoopDelayMaxMs,
    publisherEventLoopDelayP99Ms: round1(publisherLoop.percentile(99) / 1e6),
    publisherEventLoopDelayMaxMs: round1(publisherLoop.max / 1e6),
    publisherGcPauses: {
      count: publisherGc.length,
      totalMs: round1(publisherGc.reduce((sum, ms) => sum + ms, 0)),
      maxMs: round1(Math.max(0, ...publisherGc)),
    },
    controllerRssKbAfter: rssKb(controllerPid),
    controllerRunQueueWaitMsPerSecond: round1(waitedMsPerSecond),
    controllerEventLoopLagP99Ms: lag.p99Ms,
    controllerEventLoopLagMaxMs: lag.maxMs,
    controllerGc: gc,
    controllerTakenToSentWithin25MsPercent: taken.within25MsPercent,
    controllerTakenToSentP99AtMostMs: taken.p99AtMostMs,
    controllerPublishedToSentWithin25MsPercent: queued.within25MsPercent,
    controllerPublishedToSentP99AtMostMs: queued.p99AtMostMs,
    database,
    loadAverage: `${loadAtStart} -> ${loadAverage()}`,
    windowFromMs: startedAt,
    windowToMs: startedAt + wallMs,
    ...dispatchGaps(controller.logFile, logOffset, run),
  };
}

/**
 * From the controller's own log lines ("job sent to worker", with millisecond times):
 * the median time between two dispatches of the same queue while that queue had jobs
 * waiting (gaps under 2 s), i.e. what one job costs the queue's serial dispatch loop.
 */
function dispatchGaps(
  logFile: string,
  fromByte: number,
  runId: string,
): { queueServiceMsP50?: number; controllerJobsPerSecondPeak?: number } {
  const text = readFileSync(logFile, 'utf8').slice(fromByte);
  const byQueue = new Map<string, number[]>();
  const all: number[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('"job sent to worker"') || !line.includes(runId)) continue;
    try {
      const entry = JSON.parse(line) as { time?: string | number; queue?: string };
      const at = typeof entry.time === 'number' ? entry.time : Date.parse(String(entry.time));
      if (!entry.queue || Number.isNaN(at)) continue;
      const list = byQueue.get(entry.queue) ?? [];
      list.push(at);
      byQueue.set(entry.queue, list);
      all.push(at);
    } catch {
      // Not a JSON log line.
    }
  }
  const gaps: number[] = [];
  for (const times of byQueue.values())
    for (let i = 1; i < times.length; i++) if (times[i] - times[i - 1] < 2_000) gaps.push(times[i] - times[i - 1]);
  if (gaps.length === 0) return {};
  // The busiest 5-second window of the whole controller.
  all.sort((a, b) => a - b);
  let peak = 0;
  for (let i = 0, j = 0; i < all.length; i++) {
    while (all[i] - all[j] > 5_000) j++;
    peak = Math.max(peak, i - j + 1);
  }
  return { queueServiceMsP50: median(gaps), controllerJobsPerSecondPeak: round1(peak / 5) };
}

interface ReconfigRound {
  readonly round: number;
  readonly queueId: string;
  readonly reservedPercent: number;
  readonly connected: number;
  /** Workers that received ConfigChanged within the timeout. */
  readonly configChangedFrames: number;
  readonly p50Ms: number | undefined;
  readonly allMs: number | undefined;
  /** When no ConfigChanged arrived: rows of connected_workers showing the new reservation, and after how long. */
  readonly registryRowsReflecting?: number;
  readonly registryRows?: number;
  readonly registryAllMs?: number;
  readonly note: string;
}

/** True when a connected_workers capacity value shows `queueId` with `reservedPercent`. */
function capacityShows(capacity: unknown, queueId: string, reservedPercent: number): boolean {
  if (Array.isArray(capacity)) return capacity.some((item) => capacityShows(item, queueId, reservedPercent));
  if (capacity === null || typeof capacity !== 'object') return false;
  const record = capacity as Record<string, unknown>;
  const names = Object.values(record).includes(queueId);
  const percent = record['reservedPercent'] ?? record['percent'];
  if (names && (percent === reservedPercent || (reservedPercent === 0 && (percent === null || percent === undefined))))
    return true;
  return Object.entries(record).some(([key, value]) =>
    key === queueId
      ? capacityShows({ ...(value as object), id: queueId }, queueId, reservedPercent)
      : capacityShows(value, queueId, reservedPercent),
  );
}

async function reconfigPhase(
  options: Options,
  topology: Topology,
  repositories: Repositories,
  load: LoadProcess,
  queueId: string,
): Promise<ReconfigRound[]> {
  const percents = [25, 50, 0];
  const rounds: ReconfigRound[] = [];
  for (let round = 1; round <= options.reconfigRounds; round++) {
    const reservedPercent = percents[(round - 1) % percents.length];
    load.tell({ type: 'reset-config-changed' });
    const stats = await load.stats();
    const connected = stats.welcomed - stats.ended;
    const startedAt = Date.now();
    await topology.putSubscription(queueId, reservedPercent);
    let frames: number[] = [];
    let registry: { rows: number; reflecting: number; allAt?: number } = { rows: 0, reflecting: 0 };
    const deadline = startedAt + options.reconfigTimeoutMs;
    while (Date.now() < deadline) {
      frames = (await load.stats()).configChangedAt;
      if (frames.length >= connected) break;
      if (frames.length === 0) {
        const rows = await repositories.connectedWorkers.listLiveByGroup(
          DEFAULT_WORKER_GROUP_ID,
          new Date(Date.now() - CONNECTED_WORKER_STALE_MS),
        );
        const reflecting = rows.filter((row) => capacityShows(row.capacity, queueId, reservedPercent)).length;
        registry = { rows: rows.length, reflecting, allAt: registry.allAt };
        if (rows.length >= connected && reflecting >= connected) {
          registry.allAt = Date.now();
          // Give ConfigChanged frames a last moment, in case the controller writes the registry first.
          await pause(500);
          frames = (await load.stats()).configChangedAt;
          break;
        }
      }
      await pause(frames.length > 0 ? 50 : 200);
    }
    const offsets = frames.map((at) => at - startedAt).sort((a, b) => a - b);
    const allReceived = offsets.length >= connected;
    let note: string;
    if (allReceived) note = `every connected worker received ConfigChanged`;
    else if (offsets.length > 0)
      note = `${offsets.length} of ${connected} workers received ConfigChanged within ${options.reconfigTimeoutMs} ms`;
    else if (registry.allAt !== undefined)
      note = 'no ConfigChanged frame; measured until every connected_workers row showed the new reservation';
    else if (registry.rows === 0)
      note = `no ConfigChanged frame within ${options.reconfigTimeoutMs} ms and no connected_workers rows: this controller does not propagate subscription changes yet`;
    else
      note = `no ConfigChanged frame within ${options.reconfigTimeoutMs} ms; ${registry.reflecting} of ${registry.rows} connected_workers rows show the new reservation`;
    rounds.push({
      round,
      queueId,
      reservedPercent,
      connected,
      configChangedFrames: offsets.length,
      p50Ms: offsets.length > 0 ? percentile(offsets, 50) : undefined,
      allMs: allReceived ? offsets[offsets.length - 1] : undefined,
      ...(offsets.length === 0
        ? {
            registryRows: registry.rows,
            registryRowsReflecting: registry.reflecting,
            registryAllMs: registry.allAt !== undefined ? registry.allAt - startedAt : undefined,
          }
        : {}),
      note,
    });
    log(
      `reconfiguration ${round} (${queueId} -> ${reservedPercent === 0 ? 'no reservation' : `${reservedPercent}%`}): ${note}${allReceived ? ` in ${offsets[offsets.length - 1]} ms (p50 ${percentile(offsets, 50)} ms)` : ''}`,
    );
    // Let the round's effects settle before the next one.
    await pause(1_000);
  }
  return rounds;
}

// --- the run -------------------------------------------------------------------------

/**
 * A snapshot of `commit` to run the roles from (read-only git: `git archive`), with this
 * tree's node_modules and generated Prisma client, so a run measures committed code while
 * others edit the working tree.
 */
function snapshotOf(commit: string): string {
  const resolved = execFileSync('git', ['rev-parse', '--short', `${commit}^{commit}`], {
    cwd: workspaceRoot,
    encoding: 'utf8',
  }).trim();
  const dir = join(workDir, `lanner-${resolved}`);
  execFileSync('mkdir', ['-p', dir]);
  execFileSync('sh', ['-c', `git archive ${resolved} | tar -x -C "${dir}"`], { cwd: workspaceRoot });
  symlinkSync(join(workspaceRoot, 'node_modules'), join(dir, 'node_modules'));
  cpSync(join(workspaceRoot, 'libs', 'repository', 'src', 'generated'), join(dir, 'libs', 'repository', 'src', 'generated'), {
    recursive: true,
  });
  return dir;
}

function migrate(databaseUrl: string): void {
  execFileSync(process.execPath, [join(lannerRoot, 'bin', 'lanner.js'), 'db', 'migrate'], {
    cwd: lannerRoot,
    env: { ...process.env, SWC_NODE_PROJECT: join(lannerRoot, 'tsconfig.base.json'), DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 120_000,
  });
}

function gitCommit(source: string): string {
  try {
    if (source !== 'worktree')
      return execFileSync('git', ['rev-parse', '--short', `${source}^{commit}`], { cwd: workspaceRoot, encoding: 'utf8' }).trim();
    const commit = execFileSync('git', ['log', '-1', '--format=%h'], { cwd: workspaceRoot, encoding: 'utf8' }).trim();
    const dirty = execFileSync(
      'git',
      ['status', '--porcelain', '--', 'libs/roles/controller', 'libs/frames', 'libs/queue', 'libs/repository', 'libs/runtime'],
      { cwd: workspaceRoot, encoding: 'utf8' },
    ).trim();
    return dirty ? `${commit} (+ uncommitted changes in controller/shared libs)` : commit;
  } catch {
    return 'unknown';
  }
}

/**
 * Leaves `controllerCpus` to the controller: this process (and so the API and
 * load processes it starts), the local broker and PostgreSQL (with the
 * backends it forks) move to the other CPUs until cleanup.
 */
function pinApart(controllerCpus: string): void {
  const others = otherCpus(controllerCpus);
  pinProcess(process.pid, others);
  for (const name of ['kafka', 'postgres'] as const) {
    const pid = localServicePid(name);
    if (pid === undefined) {
      log(`${name} is not a local dev service: not pinned`);
      continue;
    }
    const withChildren = name === 'postgres';
    resources.pinned.push({ pid, withChildren });
    pinProcess(pid, others, withChildren);
  }
  log(
    `CPUs: the controller on ${controllerCpus}; this process, the API, the load process, the local broker and PostgreSQL on ${others}`,
  );
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const brokers = service('KAFKA_BROKERS');
  const serverUrl = service('DATABASE_URL');
  const commit = gitCommit(options.source);
  if (options.source !== 'worktree') lannerRoot = snapshotOf(options.source);
  const machine = {
    nproc: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryMb: Math.round(totalmem() / 1024 / 1024),
    node: process.version,
  };
  log(
    `fleet bench ${run}: ${options.workers} workers (memory at ${options.steps.join(', ')}), ${options.queues} queues, ${options.rates.join(' then ')} jobs/s for ${options.duration} s; commit ${commit}; node ${machine.node}, ${machine.nproc} cpus; load ${loadAverage()}`,
  );
  const brokerPid = localServicePid('kafka');
  if (brokerPid !== undefined) log(`Kafka broker of the dev services (pid ${brokerPid}): ${brokerJvmText(brokerPid)}`);
  if (options.controllerCpus !== undefined) pinApart(options.controllerCpus);

  // Database and topics of the run's own.
  resources.serverUrl = serverUrl;
  await withAdmin(serverUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${databaseName}"`);
  });
  resources.databaseCreated = true;
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  const databaseUrl = url.toString();
  migrate(databaseUrl);
  const repositories = await openRepositories(databaseUrl);
  resources.repositories = repositories;
  await repositories.workerGroups.seedReserved();
  const queue = createKafkaQueue({
    brokers: parseKafkaBrokers(brokers),
    clientId: `bench-fleet-${run}`,
    namespace: kafkaNamespace,
  });
  resources.queue = queue;
  const queues = queueIds(options.queues);
  resources.topics.push(...queues.map((id) => workerJobsTopic(id)));
  await queue.createTopics([QueueTopics.broadcast].map((topic) => ({ topic, partitions: DEFAULT_TOPIC_PARTITIONS })));

  const server = { DATABASE_URL: databaseUrl, KAFKA_BROKERS: brokers, LANNER_KAFKA_NAMESPACE: kafkaNamespace };
  let topology: Topology = directTopology(repositories, queue);
  if (options.topology !== 'direct') {
    const adminToken = `bench-${randomBytes(32).toString('base64url')}`;
    const api = startRole('api', 'api', await freePort(), { ...server, LANNER_ADMIN_TOKEN: adminToken });
    await waitReady(api);
    const candidate = apiTopology(`http://127.0.0.1:${api.httpPort}`, adminToken);
    try {
      await candidate.putQueue(queues[0]);
      topology = candidate;
    } catch (error) {
      if (options.topology === 'api' || !(error instanceof ApiRefused) || error.status !== 404) throw error;
      log(
        'the api has no worker-queue routes yet (404): topology written to the database, changes announced on lanner.broadcast by the bench',
      );
      api.child.kill('SIGTERM');
      await api.exited;
    }
  }
  log(`topology path: ${topology.path}`);
  for (const id of queues) await topology.putQueue(id);
  for (const id of queues) await topology.putSubscription(id, 0);

  // The controller, with the Node.js options the Helm chart gives it.
  const controllerNodeOptions = helmNodeOptions(lannerRoot, 'controller');
  log(`controller NODE_OPTIONS (deploy/helm/lanner/values.yaml): ${controllerNodeOptions ?? '(none)'}`);
  const profileDir = join(workDir, 'controller-profile');
  if (options.cpuProf) mkdirSync(profileDir, { recursive: true });
  const controllerHttpPort = await freePort();
  const controller = startRole(
    'controller',
    'controller',
    controllerHttpPort,
    {
      ...server,
      LANNER_GRPC_HOST: '127.0.0.1',
      LANNER_GRPC_PORT: '0',
      LANNER_ALLOW_ANONYMOUS_WORKERS: 'true',
      LANNER_JWT_SIGNING_KEY: `bench-fleet-jwt-signing-key-${randomBytes(24).toString('hex')}`,
      ...(controllerNodeOptions ? { NODE_OPTIONS: controllerNodeOptions } : {}),
    },
    [...options.controllerNodeArgs, ...(options.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])],
    options.controllerCpus,
  );
  await waitReady(controller);
  const grpcPort = await waitUntil('the controller to listen and follow broadcasts', READY_DEADLINE_MS, () => {
    const listening = logLines(controller, '"controller gRPC listening"')[0];
    return listening && logLines(controller, '"following broadcasts"').length > 0 ? Number(listening['port']) : undefined;
  });
  const controllerPid = controller.child.pid as number;

  const load = new LoadProcess({
    target: `127.0.0.1:${grpcPort}`,
    slots: options.slots,
    runMs: options.runMs,
    streamsPerConnection: options.streamsPerConnection,
  });
  await load.ready();
  await pause(options.settleMs);
  const empty = await sampleController(controller, controllerPid);
  log(
    `controller before any stream: RSS ${empty.rssKb} KB, heap used ${empty.heapUsedKb ?? '?'} KB; load process RSS ${(await load.stats()).rssKb} KB`,
  );
  const warm = Math.min(options.warm, options.steps[0] - 1);
  let baseline = empty;
  if (warm > 0) {
    await load.open(warm);
    await waitUntil(
      `${warm} warm-up workers to be welcomed`,
      120_000,
      async () => ((await load.stats()).welcomed >= warm ? true : undefined),
      250,
    );
    await pause(options.settleMs);
    baseline = await sampleController(controller, controllerPid);
    log(
      `controller with ${warm} warm-up streams (queue consumers started): RSS ${baseline.rssKb} KB, heap used ${baseline.heapUsedKb ?? '?'} KB`,
    );
  }

  // 1. Memory per idle stream at each fleet size.
  const memory: MemoryStep[] = [];
  for (const step of options.steps) {
    const connectStart = Date.now();
    await load.open(step);
    const welcomed = await waitUntil(
      `${step} workers to be welcomed`,
      300_000,
      async () => {
        const stats = await load.stats();
        return stats.welcomed >= step ? stats.welcomed : undefined;
      },
      250,
    );
    const connectSeconds = (Date.now() - connectStart) / 1000;
    const idleTicks = cpuTicks(controllerPid);
    const loadIdle = await load.stats();
    const idleStart = Date.now();
    await pause(options.settleMs);
    const sample = await sampleController(controller, controllerPid);
    const loadNow = await load.stats();
    const idleMs = Date.now() - idleStart;
    const entry: MemoryStep = {
      workers: step,
      welcomed,
      controllerRssKb: sample.rssKb,
      controllerHeapUsedKb: sample.heapUsedKb,
      kbPerStreamRss: round1((sample.rssKb - baseline.rssKb) / (step - warm)),
      kbPerStreamHeap:
        sample.heapUsedKb !== undefined && baseline.heapUsedKb !== undefined
          ? round1((sample.heapUsedKb - baseline.heapUsedKb) / (step - warm))
          : undefined,
      kbPerStreamRssFromEmpty: round1((sample.rssKb - empty.rssKb) / step),
      loadRssKb: loadNow.rssKb,
      controllerCpuPercentIdle: round1(cpuPercent(idleTicks, cpuTicks(controllerPid), idleMs)),
      loadCpuPercentIdle: round1(cpuPercent(loadIdle.cpuTicks, loadNow.cpuTicks, idleMs)),
      connectSeconds: round1(connectSeconds),
      metricsScrapeMs: sample.scrapeMs,
    };
    memory.push(entry);
    log(
      `${step} idle streams (up in ${entry.connectSeconds} s): controller RSS ${entry.controllerRssKb} KB = ${entry.kbPerStreamRss} KB per stream over the warm baseline (${entry.kbPerStreamRssFromEmpty} from empty), ` +
        `heap ${entry.kbPerStreamHeap ?? '?'} KB/stream; GET /metrics ${entry.metricsScrapeMs ?? '?'} ms; controller CPU idle ${entry.controllerCpuPercentIdle}%; load process RSS ${entry.loadRssKb} KB, CPU ${entry.loadCpuPercentIdle}%`,
    );
    if (loadNow.ended > 0) log(`  ${loadNow.ended} stream(s) ended: ${JSON.stringify(loadNow.endReasons)}`);
    if (loadNow.connectRetries > 0)
      log(
        `  ${loadNow.connectRetries} connect attempt(s) failed before a Welcome and were retried: ${JSON.stringify(loadNow.connectRetryReasons)}`,
      );
  }

  // 2. Dispatch latency under load, with the whole fleet connected.
  const producer = await jobProducer(brokers);
  const dispatches: DispatchResult[] = [];
  for (const rate of options.rates) {
    log(`dispatch: ${rate} jobs/s over ${queues.length} queues for ${options.duration} s ...`);
    const dispatch = await dispatchPhase(options, rate, producer, load, controller, queues, options.workers);
    dispatches.push(dispatch);
    log(
      `dispatch: ${dispatch.received}/${dispatch.published} jobs at ${dispatch.achievedRatePerSecond}/s; publish -> Job frame p50 ${dispatch.p50Ms} ms, p95 ${dispatch.p95Ms} ms, ` +
        `p99 ${dispatch.p99Ms} ms (after the first 5 s: ${dispatch.p99AfterFirst5sMs} ms), max ${dispatch.maxMs} ms; controller CPU ${dispatch.controllerCpuPercent}%, load process CPU ${dispatch.loadCpuPercent}%; ` +
        `Kafka alone p50 ${dispatch.kafkaProbe?.p50Ms ?? '-'} ms p99 ${dispatch.kafkaProbe?.p99Ms ?? '-'} ms; controller waited for a CPU ${dispatch.controllerRunQueueWaitMsPerSecond} ms/s, event-loop lag p99 ${dispatch.controllerEventLoopLagP99Ms ?? '?'} ms max ${dispatch.controllerEventLoopLagMaxMs ?? '?'} ms; controller GC pauses: ${gcText(dispatch.controllerGc)}; controller's own part (taken -> sent) ${dispatch.controllerTakenToSentWithin25MsPercent ?? '?'}% within 25 ms, p99 <= ${dispatch.controllerTakenToSentP99AtMostMs ?? '?'} ms; published -> sent at the controller ${dispatch.controllerPublishedToSentWithin25MsPercent ?? '?'}% within 25 ms, p99 <= ${dispatch.controllerPublishedToSentP99AtMostMs ?? '?'} ms; load process event-loop delay p99 ${dispatch.loadEventLoopDelayP99Ms} ms max ${dispatch.loadEventLoopDelayMaxMs} ms; publisher (this process) event-loop delay p99 ${dispatch.publisherEventLoopDelayP99Ms} ms max ${dispatch.publisherEventLoopDelayMaxMs} ms, GC pauses ${dispatch.publisherGcPauses.count} (${dispatch.publisherGcPauses.totalMs} ms, max ${dispatch.publisherGcPauses.maxMs} ms); machine ${dispatch.machineBusyCores} of ${cpus().length} cores busy, Kafka broker CPU ${dispatch.brokerCpuPercent ?? '?'}%, its GC pauses: ${brokerGcText(dispatch.brokerGc)}; database ${dispatch.database?.transactionsPerJob ?? '?'} transactions and ${dispatch.database?.rowsWrittenPerJob ?? '?'} rows written per job; per-queue service time ${dispatch.queueServiceMsP50 ?? '?'} ms, controller peak ${dispatch.controllerJobsPerSecondPeak ?? '?'} jobs/s`,
    );
    await pause(2_000);
  }

  // 3. Reconfiguration propagation, fleet idle again.
  await pause(2_000);
  const reconfig = await reconfigPhase(options, topology, repositories, load, queues[0]);
  const final = await load.stats();

  if (options.cpuProf) {
    // The profile is written when the controller exits; the streams go first so it stops at once.
    load.tell({ type: 'close' });
    await pause(1_000);
    controller.child.kill('SIGTERM');
    await controller.exited;
    const endedAt = Date.now();
    for (const dispatch of dispatches) {
      dispatch.profile = summariseProfile(profileDir, dispatch.windowFromMs, dispatch.windowToMs, endedAt, lannerRoot);
      if (dispatch.profile) {
        const { profile } = dispatch;
        log(
          `controller CPU profile, ${dispatch.targetRatePerSecond}/s phase (${profile.samples} samples over ${profile.windowSeconds} s): idle ${profile.idlePercent}%, GC ${profile.gcPercent}%`,
        );
        for (const area of profile.byArea) log(`  ${String(area.selfPercent).padStart(5)}%  ${area.area}`);
        for (const entry of profile.top) log(`  ${String(entry.selfPercent).padStart(5)}%  ${entry.frame}`);
      } else log(`no controller CPU profile for the ${dispatch.targetRatePerSecond}/s phase (${profileDir})`);
    }
  }

  const summary = {
    bench: 'fleet',
    date: new Date().toISOString(),
    commit,
    machine,
    loadAverage: loadAverage(),
    options: { ...options },
    topologyPath: topology.path,
    controller: {
      emptyRssKb: empty.rssKb,
      emptyHeapUsedKb: empty.heapUsedKb,
      warmStreams: warm,
      warmRssKb: baseline.rssKb,
      warmHeapUsedKb: baseline.heapUsedKb,
    },
    memory,
    dispatch: dispatches,
    reconfig,
    streams: {
      opened: final.opened,
      welcomed: final.welcomed,
      ended: final.ended,
      endReasons: final.endReasons,
      connectRetries: final.connectRetries,
      connectRetryReasons: final.connectRetryReasons,
      streamErrors: final.streamErrors,
      jobsReceived: final.jobsReceived,
      resultsSent: final.resultsSent,
    },
    targets: {
      kbPerIdleStream: {
        target: 150,
        measured: memory[memory.length - 1]?.kbPerStreamRss,
        met: (memory[memory.length - 1]?.kbPerStreamRss ?? Infinity) <= 150,
      },
      dispatchP99Ms: Object.fromEntries(
        dispatches.map((dispatch) => [
          `${dispatch.targetRatePerSecond}/s`,
          { target: 25, measured: dispatch.p99Ms, met: dispatch.p99Ms <= 25 },
        ]),
      ),
      reconfigurationMs: {
        target: 2000,
        measured:
          reconfig.length > 0 && reconfig.every((round) => round.allMs !== undefined)
            ? Math.max(...reconfig.map((round) => round.allMs as number))
            : undefined,
        met: reconfig.length > 0 && reconfig.every((round) => round.allMs !== undefined && round.allMs <= 2000),
      },
    },
  };
  printTable(summary.memory, dispatches, reconfig, empty.rssKb, warm, baseline.rssKb);
  process.stdout.write(`${JSON.stringify(summary)}\n`);
}

function printTable(
  memory: readonly MemoryStep[],
  dispatches: readonly DispatchResult[],
  reconfig: readonly ReconfigRound[],
  emptyRssKb: number,
  warm: number,
  warmRssKb: number,
): void {
  const rows: string[] = [];
  rows.push('');
  rows.push(
    `| idle streams | controller RSS | KB/stream (RSS, over ${warm} warm) | KB/stream (heap) | KB/stream (RSS, from empty) | controller CPU idle | load RSS | load CPU idle | connect time | GET /metrics |`,
  );
  rows.push(`| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`);
  rows.push(`| 0 | ${Math.round(emptyRssKb / 1024)} MB | | | | | | | | |`);
  if (warm > 0) rows.push(`| ${warm} | ${Math.round(warmRssKb / 1024)} MB | | | | | | | | |`);
  for (const step of memory) {
    rows.push(
      `| ${step.workers} | ${Math.round(step.controllerRssKb / 1024)} MB | ${step.kbPerStreamRss} | ${step.kbPerStreamHeap ?? '?'} | ${step.kbPerStreamRssFromEmpty} | ${step.controllerCpuPercentIdle}% | ${Math.round(step.loadRssKb / 1024)} MB | ${step.loadCpuPercentIdle}% | ${step.connectSeconds} s | ${step.metricsScrapeMs ?? '?'} ms |`,
    );
  }
  rows.push('');
  rows.push(
    `| dispatch, ${dispatches[0]?.workers} workers | jobs | jobs/s | publish ack p50/p99 | Kafka alone p50/p99 | p50 | p95 | p99 | p99 after 5 s | max | controller CPU | controller CPU wait | event-loop lag p99 | load CPU | queue service time | controller peak |`,
  );
  rows.push(`| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`);
  for (const dispatch of dispatches)
    rows.push(
      `| ${dispatch.targetRatePerSecond}/s target | ${dispatch.received}/${dispatch.published} | ${dispatch.achievedRatePerSecond} | ${dispatch.publishAckP50Ms}/${dispatch.publishAckP99Ms} ms | ${dispatch.kafkaProbe ? `${dispatch.kafkaProbe.p50Ms}/${dispatch.kafkaProbe.p99Ms} ms` : '-'} | ${dispatch.p50Ms} ms | ${dispatch.p95Ms} ms | ${dispatch.p99Ms} ms | ${dispatch.p99AfterFirst5sMs} ms | ${dispatch.maxMs} ms | ${dispatch.controllerCpuPercent}% | ${dispatch.controllerRunQueueWaitMsPerSecond} ms/s | ${dispatch.controllerEventLoopLagP99Ms ?? '?'} ms | ${dispatch.loadCpuPercent}% | ${dispatch.queueServiceMsP50 ?? '?'} ms | ${dispatch.controllerJobsPerSecondPeak ?? '?'}/s |`,
    );
  if (reconfig.length > 0) {
    rows.push('');
    rows.push(`| reconfiguration | workers | ConfigChanged received | p50 | all | note |`);
    rows.push(`| --- | ---: | ---: | ---: | ---: | --- |`);
    for (const round of reconfig) {
      rows.push(
        `| ${round.queueId} -> ${round.reservedPercent === 0 ? 'none' : `${round.reservedPercent}%`} | ${round.connected} | ${round.configChangedFrames} | ${round.p50Ms ?? '-'} ms | ${round.allMs ?? '-'} ms | ${round.note} |`,
      );
    }
  }
  process.stdout.write(`${rows.join('\n')}\n\n`);
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping the controller and the load process, deleting the bench's topics and database ...`);
    void cleanup(false).finally(() => process.exit(130));
  });
}

const keepLogs = process.argv.includes('--keep-logs');
main()
  .then(() => cleanup(keepLogs))
  .then(() => process.exit(0))
  .catch(async (error: unknown) => {
    process.stderr.write(`fleet bench failed: ${messageOf(error)}\n`);
    for (const role of resources.roles) process.stderr.write(`----- ${role.name} (last lines) -----\n${tail(role)}\n`);
    await cleanup(true);
    process.exit(1);
  });
