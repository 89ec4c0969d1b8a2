/**
 * A long sequential flow: one execution of N Log tasks (default 5,000) run through the
 * REST API of a running Lanner, sampled while it runs. It answers whether the cost of a
 * task grows with the number of task runs the execution already has: the tasks/s of the
 * first minute against the last, and the resident memory of each counted process at the
 * first sample against the last.
 *
 * Against one counted standalone process (it also gives the pids to watch):
 *   SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register tools/bench/e2e/standalone-cli.ts
 * then, with the LANNER_BENCH_* lines it printed:
 *   LANNER_BENCH_API_URL=... LANNER_BENCH_TOKEN=... LANNER_BENCH_COUNTS_DIR=... \
 *     SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register tools/bench/e2e/long-flow.bench.ts
 * Knobs: LONG_FLOW_TASKS (5000), LONG_FLOW_SAMPLE_SECONDS (15), LONG_FLOW_WINDOW_SECONDS (60: the first and
 * last windows compared), LONG_FLOW_MAX_MINUTES (30: the
 * execution is killed then, and the figures are of what ran). The last line is JSON.
 * Each sample reads the execution through GET /executions/{id}, which costs the api a read
 * of every task run: keep the sample interval long against the run.
 */
import { readFileSync } from 'node:fs';
import { countedProcesses, perExecution, type Snapshot, snapshot } from './counts';

const API_URL = process.env['LANNER_BENCH_API_URL'] ?? 'http://127.0.0.1:8080';
const TOKEN = process.env['LANNER_BENCH_TOKEN'];
const COUNTS_DIR = process.env['LANNER_BENCH_COUNTS_DIR'];
const TASKS = Number(process.env['LONG_FLOW_TASKS'] ?? 5000);
const SAMPLE_MS = Number(process.env['LONG_FLOW_SAMPLE_SECONDS'] ?? 15) * 1000;
const MAX_MS = Number(process.env['LONG_FLOW_MAX_MINUTES'] ?? 30) * 60_000;
/** The first and the last window compared (a minute by default; shorter when the whole run is short). */
const WINDOW_MS = Number(process.env['LONG_FLOW_WINDOW_SECONDS'] ?? 60) * 1000;

const NAMESPACE = 'bench.e2e';
const FLOW_ID = `sequential-${TASKS}`;
const ENDED = new Set(['SUCCESS', 'WARNING', 'FAILED', 'KILLED', 'CANCELLED', 'SKIPPED']);

interface Sample {
  readonly atMs: number;
  readonly done: number;
  readonly state: string;
  /** Resident memory by process label, MiB. */
  readonly rssMiB: Record<string, number>;
  /** The counted processes' totals (CPU, SQL statements), when LANNER_BENCH_COUNTS_DIR is given. */
  readonly totals?: Snapshot;
}

/** What one task cost between two samples: CPU ms by process and SQL statements (counts repeat; times do not). */
function costPerTask(from: Sample, to: Sample): Record<string, number> | undefined {
  const tasks = to.done - from.done;
  if (from.totals === undefined || to.totals === undefined || tasks <= 0) return undefined;
  const phase = perExecution(from.totals, to.totals, tasks);
  return {
    ...Object.fromEntries(Object.entries(phase.cpuMsPerExecution).map(([name, ms]) => [`cpu ms ${name}`, ms])),
    sql: phase.perExecution['sql'] ?? 0,
  };
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${TOKEN}`, accept: 'application/json', ...extra };
}

function flowSource(): string {
  const tasks = Array.from(
    { length: TASKS },
    // Short lines: a flow's source is at most 1 MiB, about 15,000 tasks of this size.
    (_, index) => `  - {id: t${index}, type: io.kestra.plugin.core.log.Log, message: "{{ task.id }}"}`,
  );
  return [`id: ${FLOW_ID}`, `namespace: ${NAMESPACE}`, 'tasks:', ...tasks, ''].join('\n');
}

async function request(method: string, path: string, body?: string, contentType?: string): Promise<unknown> {
  const response = await fetch(`${API_URL}/api/v1/main${path}`, {
    method,
    headers: headers(contentType !== undefined ? { 'content-type': contentType } : {}),
    ...(body !== undefined ? { body } : {}),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: HTTP ${response.status} ${text.slice(0, 300)}`);
  return text === '' ? undefined : JSON.parse(text);
}

function rssMiB(pid: number): number | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((one) => one.startsWith('VmRSS:'));
    return line === undefined ? undefined : Math.round(Number(line.replace(/\D+/g, '')) / 1024);
  } catch {
    return undefined;
  }
}

function memory(): Record<string, number> {
  // A process may have written under its first label (`node`) before it knew its role: one name per pid.
  const names = new Map<number, string>();
  for (const { name, pid } of COUNTS_DIR !== undefined ? countedProcesses(COUNTS_DIR) : []) {
    if (!names.has(pid) || names.get(pid) === 'node') names.set(pid, name);
  }
  const out: Record<string, number> = {};
  for (const [pid, name] of names) {
    const mib = rssMiB(pid);
    if (mib !== undefined) out[name] = (out[name] ?? 0) + mib;
  }
  return out;
}

async function sample(executionId: string, startedAt: number): Promise<Sample> {
  const execution = (await request('GET', `/executions/${executionId}`)) as {
    state: { current: string };
    taskRunList: { state: { current: string } }[];
  };
  return {
    atMs: Date.now() - startedAt,
    done: execution.taskRunList.filter((run) => ENDED.has(run.state.current)).length,
    state: execution.state.current,
    rssMiB: memory(),
    ...(COUNTS_DIR !== undefined ? { totals: await snapshot({ countsDir: COUNTS_DIR }) } : {}),
  };
}

function nearestSample(samples: readonly Sample[], at: number): Sample {
  return samples.reduce((best, one) => (Math.abs(one.atMs - at) < Math.abs(best.atMs - at) ? one : best));
}

/** Tasks/s between the samples nearest `fromMs` and `toMs`. */
function rate(samples: readonly Sample[], fromMs: number, toMs: number): number {
  const from = nearestSample(samples, fromMs);
  const to = nearestSample(samples, toMs);
  return to.atMs === from.atMs ? 0 : Math.round(((to.done - from.done) * 1000 * 10) / (to.atMs - from.atMs)) / 10;
}

async function main(): Promise<void> {
  if (TOKEN === undefined) throw new Error('LANNER_BENCH_TOKEN is required (standalone-cli prints it)');
  await request('PUT', `/flows/${NAMESPACE}/${FLOW_ID}`, flowSource(), 'application/x-yaml');
  const startedAt = Date.now();
  const created = (await request('POST', `/executions/${NAMESPACE}/${FLOW_ID}`, '{}', 'application/json')) as { id: string };
  process.stdout.write(
    `long flow: ${TASKS} sequential Log tasks, execution ${created.id}, sampled every ${SAMPLE_MS / 1000} s\n`,
  );
  const samples: Sample[] = [
    {
      atMs: 0,
      done: 0,
      state: 'CREATED',
      rssMiB: memory(),
      ...(COUNTS_DIR !== undefined ? { totals: await snapshot({ countsDir: COUNTS_DIR }) } : {}),
    },
  ];
  let last = samples[0] as Sample;
  while (!ENDED.has(last.state) && Date.now() - startedAt < MAX_MS) {
    await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
    last = await sample(created.id, startedAt);
    const previous = samples[samples.length - 1] as Sample;
    samples.push(last);
    const window = Math.round(((last.done - previous.done) * 10_000) / (last.atMs - previous.atMs)) / 10;
    process.stdout.write(
      `${(last.atMs / 1000).toFixed(0)} s: ${last.done}/${TASKS} done (${window}/s), ${last.state}, RSS MiB ${JSON.stringify(last.rssMiB)}, per task ${JSON.stringify(costPerTask(previous, last) ?? {})}\n`,
    );
  }
  if (!ENDED.has(last.state)) {
    await request('DELETE', `/executions/${created.id}/kill`);
    process.stdout.write(`stopped after ${MAX_MS / 60_000} min: killed\n`);
  }
  // The execution ended somewhere between the last two samples: the rates are of what ran before (the last RUNNING sample).
  const running = samples.filter((one) => one.state === 'RUNNING');
  const endMs = ENDED.has(last.state) && running.length >= 2 ? (running[running.length - 1] as Sample).atMs : last.atMs;
  const first = rate(samples, 0, Math.min(WINDOW_MS, endMs));
  const lastMinute = rate(samples, Math.max(0, endMs - WINDOW_MS), endMs);
  const firstMemory = samples[1]?.rssMiB ?? {};
  const nearest = (at: number): Sample => nearestSample(samples, at);
  const firstCost = costPerTask(nearest(0), nearest(Math.min(WINDOW_MS, endMs))) ?? {};
  const lastCost = costPerTask(nearest(Math.max(0, endMs - WINDOW_MS)), nearest(endMs)) ?? {};
  process.stdout.write(
    `tasks/s first window ${first}, last window ${lastMinute} (to ${(endMs / 1000).toFixed(0)} s); ${last.done} of ${TASKS} in ${(last.atMs / 1000).toFixed(0)} s or less, ${last.state}; ` +
      `RSS MiB first sample ${JSON.stringify(firstMemory)}, last ${JSON.stringify(last.rssMiB)}; ` +
      `per task, first window ${JSON.stringify(firstCost)}, last window ${JSON.stringify(lastCost)}\n`,
  );
  process.stdout.write(
    `${JSON.stringify({ bench: 'long-flow', tasks: TASKS, state: last.state, done: last.done, seconds: last.atMs / 1000, windowSeconds: WINDOW_MS / 1000, firstWindowTasksPerSecond: first, lastWindowTasksPerSecond: lastMinute, rssMiBFirst: firstMemory, rssMiBLast: last.rssMiB, perTaskFirstWindow: firstCost, perTaskLastWindow: lastCost, samples: samples.map(({ totals: _totals, ...rest }) => rest) })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
