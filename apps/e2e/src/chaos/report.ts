// What the chaos run proves, computed from what a user can see: the executions as the API
// returns them, and the side effects the flow's shell tasks wrote (one line when a task
// process starts, one when it finishes), set against the driver's log of disruptions.
import { Attempt, Execution, stateOf, TERMINAL_STATES } from '../harness/api-types';
import { describeDisruption, type Disruption } from './schedule';

/** One line a shell task wrote: `<taskRunId> <taskId> <start|end> <epoch ms>`. */
export interface Effect {
  readonly taskRunId: string;
  readonly taskId: string;
  readonly phase: 'start' | 'end';
  readonly atMs: number;
}

/** A disruption as the driver carried it out (epoch ms). */
export interface Happened {
  readonly disruption: Disruption;
  readonly startedAtMs: number;
  /** When the process was back (ready again, or resumed). */
  readonly endedAtMs: number;
}

/** How long after a task process ends its result may still be on its way (worker -> controller -> executor). */
export const RESULT_IN_FLIGHT_MS = 5_000;

export function parseEffects(text: string): Effect[] {
  const effects: Effect[] = [];
  for (const line of text.split('\n')) {
    const [taskRunId, taskId, phase, at] = line.trim().split(/\s+/);
    if (!taskRunId || !taskId || (phase !== 'start' && phase !== 'end') || !/^\d+$/.test(at ?? '')) continue;
    effects.push({ taskRunId, taskId, phase, atMs: Number(at) });
  }
  return effects;
}

export function percentile(values: readonly number[], fraction: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))];
}

export interface ChaosFindings {
  readonly executions: number;
  readonly states: Readonly<Record<string, number>>;
  /** Not terminal at the end of the wait: stuck or lost. */
  readonly notTerminal: readonly string[];
  /** Terminal but not SUCCESS (the flow is built to succeed: its only failure is retried). */
  readonly failed: readonly string[];
  /** SUCCESS executions whose shell task run never finished a process: work recorded that never happened. */
  readonly missingEffects: readonly string[];
  /** Per task id: attempts per task run -> how many task runs. */
  readonly attempts: Readonly<Record<string, Readonly<Record<number, number>>>>;
  /** Task runs with more attempts than the flow explains (a resubmission made a new attempt). */
  readonly extraAttempts: number;
  /** Task runs whose process started more than once but finished at most once: interrupted work run again. */
  readonly rerunsOfInterrupted: number;
  /** Finished more than once, a disruption during the first run or just after it (at-least-once allows it). */
  readonly duplicatesAllowed: readonly string[];
  /** Finished more than once with no disruption in between: at-least-once does not explain them. */
  readonly duplicatesUnexplained: readonly string[];
  /** Per disruption kind: ms from the disruption to the next start of a task run it interrupted. */
  readonly redispatchMs: Readonly<Record<string, readonly number[]>>;
  /** Per disruption (in order): task processes started and not finished when it began, anywhere in the cluster. */
  readonly inFlight: readonly number[];
  /**
   * Per disruption kind, from the API: ms from the disruption to the start of the attempt
   * that followed a RESUBMITTED one. The disruption is a kill or stop of the worker the
   * resubmitted attempt ran on, if one came between the two starts; otherwise the last one
   * before that start that began after the resubmitted attempt started. Covers every task,
   * not only shell ones.
   */
  readonly resubmittedMs: Readonly<Record<string, readonly number[]>>;
}

export interface ExpectedAttempts {
  /** Attempts the flow itself makes for this task id (a task failing on purpose once: 2). */
  readonly [taskId: string]: number;
}

/** Reads every fact the report states; `shellTaskIds` are the parent flow's tasks that write effects. */
export function analyse(
  executions: readonly Execution[],
  notTerminalIds: readonly string[],
  effects: readonly Effect[],
  happened: readonly Happened[],
  expected: {
    readonly attempts: ExpectedAttempts;
    readonly shellTaskIds: readonly string[];
    /** Worker id -> the name the driver disrupts it by (the connected workers at the end: the ids are stable). */
    readonly workerNames: Readonly<Record<string, string>>;
  },
): ChaosFindings {
  const states: Record<string, number> = {};
  const failed: string[] = [];
  const missingEffects: string[] = [];
  const attempts: Record<string, Record<number, number>> = {};
  let extraAttempts = 0;

  const byTaskRun = new Map<string, Effect[]>();
  for (const effect of effects) {
    const list = byTaskRun.get(effect.taskRunId) ?? [];
    list.push(effect);
    byTaskRun.set(effect.taskRunId, list);
  }

  for (const execution of executions) {
    const state = stateOf(execution);
    states[state] = (states[state] ?? 0) + 1;
    if (!(TERMINAL_STATES as readonly string[]).includes(state)) continue;
    if (state !== 'SUCCESS') failed.push(`${execution.id} ${state}`);
    for (const run of execution.taskRunList ?? []) {
      const count = (run.attempts ?? []).length;
      const perTask = (attempts[run.taskId] ??= {});
      perTask[count] = (perTask[count] ?? 0) + 1;
      if (count > (expected.attempts[run.taskId] ?? 1)) extraAttempts++;
      if (state === 'SUCCESS' && expected.shellTaskIds.includes(run.taskId)) {
        const finished = (byTaskRun.get(run.id) ?? []).some((effect) => effect.phase === 'end');
        if (!finished) missingEffects.push(`${execution.id} ${run.taskId} ${run.id}`);
      }
    }
  }

  let rerunsOfInterrupted = 0;
  const duplicatesAllowed: string[] = [];
  const duplicatesUnexplained: string[] = [];
  for (const [taskRunId, list] of byTaskRun) {
    const starts = list.filter((effect) => effect.phase === 'start').map((effect) => effect.atMs);
    const ends = list.filter((effect) => effect.phase === 'end').map((effect) => effect.atMs);
    starts.sort((a, b) => a - b);
    if (ends.length > 1) {
      const describe = `${taskRunId} (${list[0].taskId}): ${starts.length} starts, ${ends.length} ends`;
      // At-least-once allows a second run only when the first one's result could have been
      // lost: a disruption that began while it ran, or within RESULT_IN_FLIGHT_MS of its end.
      const firstEnd = Math.min(...ends);
      const explained = happened.some(
        (one) => one.startedAtMs >= starts[0] - 1000 && one.startedAtMs <= firstEnd + RESULT_IN_FLIGHT_MS,
      );
      (explained ? duplicatesAllowed : duplicatesUnexplained).push(describe);
    } else if (starts.length > 1) {
      rerunsOfInterrupted++;
    }
  }

  const redispatchMs: Record<string, number[]> = {};
  const inFlight: number[] = [];
  for (const one of happened) {
    let going = 0;
    const key = `${one.disruption.kind} ${one.disruption.role}`;
    const delays = (redispatchMs[key] ??= []);
    for (const list of byTaskRun.values()) {
      const before = list.filter((effect) => effect.atMs <= one.startedAtMs);
      // Interrupted: a run had started and not finished when the disruption hit.
      const interrupted = before.some((effect) => effect.phase === 'start') && !before.some((effect) => effect.phase === 'end');
      if (!interrupted) continue;
      going++;
      const next = list
        .filter((effect) => effect.phase === 'start' && effect.atMs > one.startedAtMs)
        .sort((a, b) => a.atMs - b.atMs)[0];
      // Re-dispatched: started again after the disruption (whether or not the first process
      // went on to finish: one that outlives its worker does).
      if (next !== undefined) delays.push(next.atMs - one.startedAtMs);
    }
    inFlight.push(going);
  }

  const resubmittedMs: Record<string, number[]> = {};
  const byStart = [...happened].sort((a, b) => a.startedAtMs - b.startedAtMs);
  for (const execution of executions) {
    for (const run of execution.taskRunList ?? []) {
      const list = run.attempts ?? [];
      for (let index = 0; index + 1 < list.length; index++) {
        if (attemptState(list[index]) !== 'RESUBMITTED') continue;
        const firstStart = attemptStart(list[index]);
        const nextStart = attemptStart(list[index + 1]);
        if (nextStart === undefined) continue;
        const between = byStart.filter(
          (one) => one.startedAtMs <= nextStart && (firstStart === undefined || one.startedAtMs >= firstStart - 1000),
        );
        // The worker it ran on died or stopped: that is what cut it short, whatever came after.
        const ranOn = expected.workerNames[list[index].workerId ?? ''];
        const cause = between.filter((one) => one.disruption.target === ranOn).pop() ?? between.pop();
        if (cause === undefined) continue;
        (resubmittedMs[`${cause.disruption.kind} ${cause.disruption.role}`] ??= []).push(nextStart - cause.startedAtMs);
      }
    }
  }

  return {
    executions: executions.length + notTerminalIds.length,
    states,
    notTerminal: notTerminalIds,
    failed,
    missingEffects,
    attempts,
    extraAttempts,
    rerunsOfInterrupted,
    duplicatesAllowed,
    duplicatesUnexplained,
    redispatchMs,
    inFlight,
    resubmittedMs,
  };
}

function attemptState(attempt: Attempt): string {
  return typeof attempt.state === 'string' ? attempt.state : attempt.state.current;
}

function attemptStart(attempt: Attempt): number | undefined {
  const date = typeof attempt.state === 'string' ? undefined : attempt.state.startDate;
  return date ? Date.parse(date) : undefined;
}

export interface LeakFindings {
  /** Workers whose ledger still shows a used slot (or a waiting job) with nothing running. */
  readonly busyWorkers: readonly string[];
  /** Rows of the durable running-job store left when every execution has ended. */
  readonly runningJobs: number;
  /** Worker names listed more than once, or missing, in the group's connected workers. */
  readonly registryMismatch: readonly string[];
  /** Service instances neither alive nor NOT_RUNNING (DISCONNECTED forever, or RUNNING without a process). */
  readonly instancesNotSettled: readonly string[];
  /** Service instances NOT_RUNNING at the end (the dead ones). */
  readonly instancesNotRunning: number;
}

function ms(value: number | undefined): string {
  return value === undefined ? 'n/a' : `${(value / 1000).toFixed(1)} s`;
}

export function leakedCount(leaks: LeakFindings): number {
  return leaks.busyWorkers.length + leaks.runningJobs + leaks.registryMismatch.length + leaks.instancesNotSettled.length;
}

export function lostCount(findings: ChaosFindings): number {
  return findings.notTerminal.length + findings.failed.length + findings.missingEffects.length;
}

/** The re-dispatch delays of the jobs of killed workers: kill -9 to the next start of each task run it cut short. */
export const WORKER_KILL = 'kill9 worker';

/** Both measures of a killed worker's jobs: the next start of a shell task's process, the next attempt's start (API). */
export function workerKillRedispatchMs(findings: ChaosFindings): number[] {
  return [...(findings.redispatchMs[WORKER_KILL] ?? []), ...(findings.resubmittedMs[WORKER_KILL] ?? [])];
}

/** Jobs of killed workers started again later than `boundMs` after the kill. */
export function redispatchesOverBound(findings: ChaosFindings, boundMs: number): number {
  return workerKillRedispatchMs(findings).filter((delay) => delay > boundMs).length;
}

export interface ReportHeader {
  readonly seed: number;
  readonly elapsedMs: number;
  /** What the re-dispatch of a killed worker's jobs is checked against (the adoption grace + 2 s). */
  readonly redispatchBoundMs: number;
  /** How many of the executions a schedule created (the rest are the mixed flow's). */
  readonly scheduled: number;
}

/** The printed report: every figure docs/RELIABILITY.md records. */
export function formatReport(
  header: ReportHeader,
  happened: readonly Happened[],
  findings: ChaosFindings,
  leaks: LeakFindings,
): string {
  const allDelays = Object.values(findings.redispatchMs).flat();
  const workerKill = workerKillRedispatchMs(findings);
  const over = redispatchesOverBound(findings, header.redispatchBoundMs);
  const lines = [
    `chaos report: seed ${header.seed}, ${findings.executions} executions (${findings.executions - header.scheduled} of the mixed flow, ${header.scheduled} scheduled), ${happened.length} disruptions, ${ms(header.elapsedMs)}`,
    ...happened.map(
      (one, index) =>
        `  ${describeDisruption(one.disruption)} (${findings.inFlight[index]} task processes in flight; back after ${ms(one.endedAtMs - one.startedAtMs)})`,
    ),
    `executions by state: ${JSON.stringify(findings.states)}`,
    `not terminal (stuck/lost): ${findings.notTerminal.length}${findings.notTerminal.length ? ` ${findings.notTerminal.slice(0, 10).join(', ')}` : ''}`,
    `failed: ${findings.failed.length}${findings.failed.length ? ` ${findings.failed.slice(0, 10).join(', ')}` : ''}`,
    `SUCCESS without the task's side effect: ${findings.missingEffects.length}`,
    `attempts per task run: ${JSON.stringify(findings.attempts)}`,
    `task runs with extra attempts (resubmitted): ${findings.extraAttempts}`,
    `interrupted task processes run again: ${findings.rerunsOfInterrupted}`,
    `duplicate side effects within at-least-once (a disruption between the runs): ${findings.duplicatesAllowed.length}`,
    ...findings.duplicatesAllowed.slice(0, 10).map((one) => `  ${one}`),
    `duplicate side effects NOT explained by a disruption: ${findings.duplicatesUnexplained.length}`,
    ...findings.duplicatesUnexplained.slice(0, 10).map((one) => `  ${one}`),
    `re-dispatch after a disruption: p50 ${ms(percentile(allDelays, 0.5))}, max ${ms(percentile(allDelays, 1))} (${allDelays.length} task runs)`,
    ...Object.entries(findings.redispatchMs).map(
      ([kind, delays]) =>
        `  ${kind}: ${delays.length} task runs, p50 ${ms(percentile(delays, 0.5))}, max ${ms(percentile(delays, 1))}`,
    ),
    `resubmitted attempts (API: disruption to the next attempt's start): ${Object.values(findings.resubmittedMs).flat().length} task runs`,
    ...Object.entries(findings.resubmittedMs).map(
      ([kind, delays]) =>
        `  ${kind}: ${delays.length} task runs, p50 ${ms(percentile(delays, 0.5))}, max ${ms(percentile(delays, 1))}`,
    ),
    `re-dispatch of a killed worker's jobs (both measures) against the adoption grace + 2 s (${ms(header.redispatchBoundMs)}): ${
      workerKill.length === 0
        ? 'no task run caught in flight'
        : over === 0
          ? `all ${workerKill.length} within (p50 ${ms(percentile(workerKill, 0.5))}, max ${ms(percentile(workerKill, 1))})`
          : `${over} of ${workerKill.length} OVER (p50 ${ms(percentile(workerKill, 0.5))}, max ${ms(percentile(workerKill, 1))})`
    }`,
    `ledgers with a slot held: ${leaks.busyWorkers.length}${leaks.busyWorkers.length ? ` ${leaks.busyWorkers.join(', ')}` : ''}`,
    `running_jobs rows left: ${leaks.runningJobs}`,
    `connected workers not matching the live processes: ${leaks.registryMismatch.length}${leaks.registryMismatch.length ? ` ${leaks.registryMismatch.join(', ')}` : ''}`,
    `service instances NOT_RUNNING: ${leaks.instancesNotRunning}; neither alive nor NOT_RUNNING: ${leaks.instancesNotSettled.length}${leaks.instancesNotSettled.length ? ` ${leaks.instancesNotSettled.join(', ')}` : ''}`,
    `LOST: ${lostCount(findings)}   LEAKED: ${leakedCount(leaks)}`,
  ];
  return lines.join('\n');
}
