/**
 * End-to-end throughput and latency: executions of a two-task flow (Log + Return)
 * submitted through the REST API of a running Lanner, each answered when it ends
 * (`POST ...?wait=true`), so the latency is what a user waiting on it sees:
 * API -> executor -> controller -> worker -> back, twice.
 *
 * Start a cluster first (the e2e one: separate role processes on real Kafka/PostgreSQL):
 *   SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register apps/e2e/src/harness/cluster-cli.ts
 * then, with the two variables it prints:
 *   LANNER_BENCH_API_URL=... LANNER_BENCH_TOKEN=... \
 *     SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register tools/bench/e2e/e2e.bench.ts
 *
 * Two phases: a fixed arrival rate (open loop: one submission every 1/RATE s whatever
 * the answers do), then saturation (closed loop: CONCURRENCY clients submitting back to
 * back). The last line is JSON for tooling. A timing belongs here, never in a test.
 *
 * Counts: with LANNER_BENCH_COUNTS_DIR (and, distributed, LANNER_BENCH_DATABASE with the
 * server's DATABASE_URL) as the cluster printed them, each phase line also gives what one
 * execution cost: SQL statements and transactions, queue messages, Kafka requests by API,
 * gRPC messages and CPU ms by process (see counts.ts). Those repeat run to run; compare them.
 * Standalone: `tools/bench/e2e/standalone-cli.ts` starts one counted standalone process.
 */
import { cpus } from 'node:os';
import { type CountSources, describe, headline, netOfIdle, type PhaseCounts, perExecution, snapshot } from './counts';

const API_URL = process.env['LANNER_BENCH_API_URL'] ?? 'http://127.0.0.1:8080';
const TOKEN = process.env['LANNER_BENCH_TOKEN'];
const EXECUTIONS = Number(process.env['E2E_BENCH_EXECUTIONS'] ?? 100);
const RATE = Number(process.env['E2E_BENCH_RATE'] ?? 5);
const CONCURRENCY = Number(process.env['E2E_BENCH_CONCURRENCY'] ?? 16);
const WARM_UP = Number(process.env['E2E_BENCH_WARM_UP'] ?? 5);
/** Where the counted role processes write their totals (cluster-cli and standalone-cli print it). */
const COUNTS_DIR = process.env['LANNER_BENCH_COUNTS_DIR'];
/** The run's database on the server of DATABASE_URL (distributed; standalone's embedded one is counted as a child). */
const DATABASE = process.env['LANNER_BENCH_DATABASE'];
/** Quiet time after a phase, so trailing work (indexing, commits) and PostgreSQL's statistics land in its counts. */
const SETTLE_MS = 2_000;
/** How long the idle rates (per second, before the phases) are measured. */
const IDLE_MS = 10_000;

const NAMESPACE = 'bench.e2e';
const FLOW_ID = 'two-tasks';
const FLOW = `
id: ${FLOW_ID}
namespace: ${NAMESPACE}
tasks:
  - { id: say, type: io.kestra.plugin.core.log.Log, message: "bench {{ execution.id }}" }
  - { id: answer, type: io.kestra.plugin.core.debug.Return, format: "done" }
`;

interface Sample {
  readonly latencyMs: number;
  readonly state: string;
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${TOKEN}`, accept: 'application/json', ...extra };
}

async function putFlow(): Promise<void> {
  const response = await fetch(`${API_URL}/api/v1/main/flows/${NAMESPACE}/${FLOW_ID}`, {
    method: 'PUT',
    headers: headers({ 'content-type': 'application/x-yaml' }),
    body: FLOW,
  });
  if (response.status !== 200 && response.status !== 201)
    throw new Error(`PUT flow: HTTP ${response.status} ${await response.text()}`);
}

/** One execution, submitted and waited for; the sample is what the caller waited. */
async function runOne(): Promise<Sample> {
  const startedAt = performance.now();
  const response = await fetch(`${API_URL}/api/v1/main/executions/${NAMESPACE}/${FLOW_ID}?wait=true&waitTimeout=PT120S`, {
    method: 'POST',
    headers: headers({ 'content-type': 'application/json' }),
    body: '{}',
  });
  const text = await response.text();
  const latencyMs = performance.now() - startedAt;
  if (response.status !== 200) return { latencyMs, state: `HTTP ${response.status}` };
  const body = JSON.parse(text) as { state?: string | { current?: string } };
  const state = typeof body.state === 'string' ? body.state : (body.state?.current ?? 'unknown');
  return { latencyMs, state };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)];
}

interface PhaseResult {
  readonly phase: string;
  readonly executions: number;
  readonly succeeded: number;
  readonly otherStates: Record<string, number>;
  readonly wallSeconds: number;
  readonly executionsPerSecond: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  counts?: PhaseCounts;
  netCounts?: PhaseCounts;
}

function summarise(phase: string, samples: readonly Sample[], wallMs: number): PhaseResult {
  const latencies = samples.map((sample) => sample.latencyMs).sort((a, b) => a - b);
  const otherStates: Record<string, number> = {};
  for (const sample of samples) if (sample.state !== 'SUCCESS') otherStates[sample.state] = (otherStates[sample.state] ?? 0) + 1;
  const round = (value: number): number => Math.round(value * 10) / 10;
  return {
    phase,
    executions: samples.length,
    succeeded: samples.filter((sample) => sample.state === 'SUCCESS').length,
    otherStates,
    wallSeconds: round(wallMs / 1000),
    executionsPerSecond: round((samples.length * 1000) / wallMs),
    p50Ms: round(percentile(latencies, 50)),
    p95Ms: round(percentile(latencies, 95)),
    p99Ms: round(percentile(latencies, 99)),
  };
}

/** Open loop: submissions leave on a fixed schedule, so a slow system queues work up. */
async function fixedRate(count: number, perSecond: number): Promise<PhaseResult> {
  const startedAt = performance.now();
  const running: Promise<Sample>[] = [];
  for (let i = 0; i < count; i++) {
    const due = startedAt + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    running.push(runOne());
  }
  const samples = await Promise.all(running);
  return summarise(`fixed rate ${perSecond}/s`, samples, performance.now() - startedAt);
}

/** Closed loop: `clients` callers, each submitting the next execution when its last one ended. */
async function saturation(count: number, clients: number): Promise<PhaseResult> {
  const startedAt = performance.now();
  const samples: Sample[] = [];
  let next = 0;
  const client = async (): Promise<void> => {
    while (next < count) {
      next++;
      samples.push(await runOne());
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  return summarise(`saturation, ${clients} clients`, samples, performance.now() - startedAt);
}

function printPhase(result: PhaseResult): void {
  const others = Object.entries(result.otherStates)
    .map(([state, n]) => `${n} ${state}`)
    .join(', ');
  process.stdout.write(
    `${result.phase}: ${result.executions} executions in ${result.wallSeconds} s = ${result.executionsPerSecond}/s; ` +
      `latency p50 ${result.p50Ms} ms, p95 ${result.p95Ms} ms, p99 ${result.p99Ms} ms; ${result.succeeded} SUCCESS${others ? `, ${others}` : ''}` +
      (result.counts ? `; ${describe(result.counts)}` : '') +
      (result.netCounts ? `; net of the idle rate: ${headline(result.netCounts)}` : '') +
      '\n',
  );
}

/** Runs a phase between two count snapshots when the processes are counted. */
function countSources(): CountSources | undefined {
  return COUNTS_DIR
    ? { countsDir: COUNTS_DIR, serverDatabaseUrl: process.env['DATABASE_URL'], databaseName: DATABASE }
    : undefined;
}

/** What the processes do per second with nothing to run (printed, and taken off each phase's net figures). */
async function idleRates(): Promise<PhaseCounts | undefined> {
  const sources = countSources();
  if (!sources) return undefined;
  const before = await snapshot(sources);
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const rates = perExecution(before, await snapshot(sources), IDLE_MS / 1000);
  process.stdout.write(`idle, per second: ${describe(rates).replace(/^per execution: /, '')}\n`);
  return rates;
}

async function counted(run: () => Promise<PhaseResult>, idle: PhaseCounts | undefined): Promise<PhaseResult> {
  const sources = countSources();
  if (!sources) return run();
  const before = await snapshot(sources);
  const startedAt = performance.now();
  const result = await run();
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  result.counts = perExecution(before, await snapshot(sources), result.executions);
  if (idle) result.netCounts = netOfIdle(result.counts, idle, (performance.now() - startedAt) / 1000, result.executions);
  return result;
}

async function main(): Promise<void> {
  if (!TOKEN) throw new Error('LANNER_BENCH_TOKEN is not set: the admin token of the API at LANNER_BENCH_API_URL');
  process.stdout.write(
    `e2e bench against ${API_URL}: node ${process.version}, ${cpus().length} cpus (${cpus()[0]?.model ?? 'unknown'})\n`,
  );
  await putFlow();
  for (let i = 0; i < WARM_UP; i++) await runOne();
  const idle = await idleRates();
  const rate = await counted(() => fixedRate(EXECUTIONS, RATE), idle);
  printPhase(rate);
  const saturated = await counted(() => saturation(EXECUTIONS, CONCURRENCY), idle);
  printPhase(saturated);
  process.stdout.write(`${JSON.stringify({ bench: 'e2e', apiUrl: API_URL, results: [rate, saturated] })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
