/**
 * State machine throughput: events applied per second by `next` on one core.
 *
 *   SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register tools/bench/state-machine/state-machine.bench.ts
 *
 * Each scenario first records the event stream of a whole execution (every job
 * started then succeeded, in dispatch order), then replays that stream onto a
 * fresh execution: only the `next` calls are timed. One warm-up round, then
 * ROUNDS timed rounds; the median round is reported. For the 10,000-value
 * ForEach the first and the last 1,000 events of an execution are timed
 * separately (in CPU time): equal rates show that the cost of an event does
 * not grow with the number of finished task runs. Rates are given per
 * wall-clock second and per CPU-second of the process. The last line is JSON for tooling. A timing belongs
 * here, never in a test.
 */
import { DEFAULT_TENANT_ID, DEFAULT_WORKER_QUEUE_ID, type Flow, type Task } from '@lanner/model';
import { type Execution, type ExecutionEvent, createExecution, next } from '@lanner/state-machine';

const ROUNDS = Number(process.env['SM_BENCH_ROUNDS'] ?? 7);
const FOR_EACH_VALUES = Number(process.env['SM_BENCH_VALUES'] ?? 10_000);

const common = { disabled: false, allowFailure: false, allowWarning: false } as const;
const logTask = (id: string): Task => ({
  ...common,
  id,
  type: 'io.kestra.plugin.core.log.Log',
  kind: 'Log',
  message: id,
  level: 'INFO',
});

function flowOf(id: string, tasks: Task[]): Flow {
  return {
    id,
    namespace: 'bench',
    labels: {},
    inputs: [],
    variables: {},
    tasks,
    errors: [],
    finally: [],
    outputs: [],
    triggers: [],
    disabled: false,
  };
}

/** 100 runnable tasks: 50 in sequence, then a Parallel of 50 (limit 10). */
const hundredTasks = flowOf('hundred', [
  ...Array.from({ length: 50 }, (_, i) => logTask(`step-${i}`)),
  {
    ...common,
    id: 'fan',
    type: 'io.kestra.plugin.core.flow.Parallel',
    kind: 'Parallel',
    concurrency: 10,
    tasks: Array.from({ length: 50 }, (_, i) => logTask(`branch-${i}`)),
  },
]);

/** A ForEach of FOR_EACH_VALUES values, 10 at a time. */
const bigForEach = flowOf('for-each', [
  {
    ...common,
    id: 'each',
    type: 'io.kestra.plugin.core.flow.ForEach',
    kind: 'ForEach',
    values: Array.from({ length: FOR_EACH_VALUES }, (_, i) => `v${i}`),
    concurrencyLimit: 10,
    tasks: [logTask('work')],
  },
]);

/**
 * Runs one execution, answering every dispatch with started + SUCCESS, and
 * records its events. Each timed execution gets its own id (so its own task-run
 * ids): nothing is reused between executions, as in the executor.
 */
function recordEvents(flow: Flow, executionId: string): ExecutionEvent[] {
  let execution = createExecution(flow, { id: executionId, tenant: DEFAULT_TENANT_ID }, 0);
  const queue: ExecutionEvent[] = [{ type: 'created' }];
  for (let i = 0; i < queue.length; i++) {
    const result = next(flow, execution, queue[i] as ExecutionEvent, i);
    execution = result.execution;
    for (const action of result.actions) {
      if (action.type !== 'dispatch') continue;
      const job = { taskRunId: action.taskRunId, attempt: action.attempt };
      queue.push({ type: 'task-run-started', ...job, workerId: 'w1', workerQueueId: DEFAULT_WORKER_QUEUE_ID });
      queue.push({ type: 'task-run-result', ...job, state: 'SUCCESS' });
    }
  }
  if (execution.state !== 'SUCCESS') throw new Error(`setup: ${flow.id} ended ${execution.state}`);
  return queue;
}

interface Round {
  readonly total: number;
  /** Events per CPU-second of this process (fairer on a shared machine). */
  readonly perCpuSecond: number;
  /** Per execution: events per CPU-second over its first and its last 1,000 events. */
  readonly first: number[];
  readonly last: number[];
}

/**
 * Applies the recorded streams (one per execution, in turn) to fresh
 * executions; returns events/s overall and, per stream, the rate over its
 * first and last 1,000 events.
 */
function replay(flow: Flow, streams: readonly (readonly ExecutionEvent[])[], executionIds: readonly string[]): Round {
  let count = 0;
  const first: number[] = [];
  const last: number[] = [];
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  streams.forEach((events, n) => {
    let execution: Execution = createExecution(flow, { id: executionIds[n] as string, tenant: DEFAULT_TENANT_ID }, 0);
    const window = Math.min(1000, events.length);
    // The windows are timed in CPU time of this process: on a shared machine the
    // wall clock of 1,000 events (a few ms) is mostly other processes' noise.
    const cpuMicros = (): number => {
      const usage = process.cpuUsage();
      return usage.user + usage.system;
    };
    const streamStart = cpuMicros();
    let firstMark = streamStart;
    let lastMark = streamStart;
    for (let i = 0; i < events.length; i++) {
      if (i === window) firstMark = cpuMicros();
      if (i === events.length - window) lastMark = cpuMicros();
      execution = next(flow, execution, events[i] as ExecutionEvent, i).execution;
    }
    const streamEnd = cpuMicros();
    if (execution.state !== 'SUCCESS') throw new Error(`replay ended ${execution.state}`);
    first.push(window / ((firstMark - streamStart) / 1e6));
    last.push(window / ((streamEnd - lastMark) / 1e6));
    count += events.length;
  });
  const end = process.hrtime.bigint();
  const cpu = process.cpuUsage(cpuStart);
  return { total: count / (Number(end - start) / 1e9), perCpuSecond: count / ((cpu.user + cpu.system) / 1e6), first, last };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

const scenarios = [
  // 250 executions of the 100-task flow per round (about 50,000 events); 5 of the ForEach (100,005).
  { name: 'hundred-tasks', flow: hundredTasks, executionsPerRound: 250 },
  { name: 'for-each-10k', flow: bigForEach, executionsPerRound: 5 },
] as const;

const report: Record<string, unknown> = {};
for (const scenario of scenarios) {
  const rounds: Round[] = [];
  for (let r = -1; r < ROUNDS; r++) {
    const ids = Array.from({ length: scenario.executionsPerRound }, (_, n) => `bench-${scenario.name}-${r + 1}-${n}`);
    const streams = ids.map((id) => recordEvents(scenario.flow, id));
    const round = replay(scenario.flow, streams, ids);
    if (r >= 0) rounds.push(round); // round -1 is the warm-up
  }
  const total = rounds.map((round) => round.total);
  const eventsPerExecution = recordEvents(scenario.flow, 'count').length;
  const result = {
    eventsPerExecution,
    executionsPerRound: scenario.executionsPerRound,
    medianEventsPerSecond: Math.round(median(total)),
    minEventsPerSecond: Math.round(Math.min(...total)),
    maxEventsPerSecond: Math.round(Math.max(...total)),
    medianEventsPerCpuSecond: Math.round(median(rounds.map((round) => round.perCpuSecond))),
    ...(eventsPerExecution >= 2000
      ? {
          // Median over every execution of every round (a GC pause lands in some windows).
          firstThousandEventsPerCpuSecond: Math.round(median(rounds.flatMap((round) => round.first))),
          lastThousandEventsPerCpuSecond: Math.round(median(rounds.flatMap((round) => round.last))),
        }
      : {}),
  };
  report[scenario.name] = result;
  const windows =
    result.firstThousandEventsPerCpuSecond !== undefined
      ? `  first 1,000: ${fmt(result.firstThousandEventsPerCpuSecond)} ev/CPU-s  last 1,000: ${fmt(result.lastThousandEventsPerCpuSecond ?? 0)} ev/CPU-s`
      : '';
  console.log(
    `${scenario.name.padEnd(14)} ${fmt(eventsPerExecution).padStart(6)} events x ${scenario.executionsPerRound}  median ${fmt(result.medianEventsPerSecond)} ev/s ` +
      `(${fmt(result.minEventsPerSecond)} .. ${fmt(result.maxEventsPerSecond)})  per CPU-second ${fmt(result.medianEventsPerCpuSecond)}${windows}`,
  );
}
console.log(JSON.stringify({ node: process.version, rounds: ROUNDS, ...report }));
