// Pause: PAUSED (and the execution with it) until a resume, its
// `pauseDuration` (a `pause-resume` timer: resumes by itself) or its
// `timeout` (a `pause-timeout` timer: fails, WARNING with allowFailure). The
// resume inputs are its outputs, checked and defaulted against `onResume`.
// Templated durations are rendered when it starts.
// With Kestra's deprecated `tasks` it is a container: PAUSED first, then, once
// resumed, its tasks run one after the other (its `errors` branch on a failure).
import {
  coerceInputs,
  formatProblem,
  parseIsoDuration,
  type DurationSpec,
  type FlowProblem,
  type PauseTask,
} from '@lanner/model';
import { formatDuration } from '../attempts';
import { EMPTY_PROGRESS } from '../progress';
import { renderText } from '../render';
import { copyRun } from '../shapes';
import type { ContainerProgress, JsonObject, TaskRun } from '../types';
import { type ContainerRules, type FlowableStep, type LeafRules, oneLane } from './flowable';

/** True for a Pause with Kestra's deprecated `tasks`: its children run after the resume. */
export function pausesChildren(task: PauseTask): boolean {
  return (task.tasks ?? []).length > 0;
}

/** A Pause duration in milliseconds, rendering it when it is a template; a string naming the problem otherwise. */
function durationOf(spec: DurationSpec | undefined, key: string, step: FlowableStep, run: TaskRun): number | string | undefined {
  if (spec === undefined || typeof spec === 'number') return spec;
  const text = renderText(spec, step.context(run), step.renderOptions).trim();
  const ms = parseIsoDuration(text);
  if (ms === undefined || ms <= 0) return `${key}: '${text}' is not an ISO-8601 duration longer than zero (such as PT30S)`;
  return ms;
}

/** From RUNNING: PAUSED with its timers, or FAILED when a templated duration is not one. Returns its state. */
function pauseNow(task: PauseTask, step: FlowableStep, run: TaskRun): TaskRun {
  const duration = durationOf(task.pauseDurationMs, 'pauseDuration', step, run);
  const timeout = durationOf(task.pauseTimeoutMs, 'timeout', step, run);
  for (const problem of [duration, timeout]) {
    if (typeof problem === 'string') return step.finishRun(run, task, 'FAILED', { error: problem });
  }
  const paused = step.moveRun(run, 'PAUSED');
  if (typeof duration === 'number') step.scheduleTimer(run.id, 'pause-resume', 1, step.now + duration);
  if (typeof timeout === 'number') step.scheduleTimer(run.id, 'pause-timeout', 1, step.now + timeout);
  step.executionPaused();
  return paused;
}

function cancelPauseTimers(task: PauseTask, step: FlowableStep, run: TaskRun): void {
  step.cancelTimer(run.id, 'pause-resume', 1, task.pauseDurationMs !== undefined);
  step.cancelTimer(run.id, 'pause-timeout', 1, task.pauseTimeoutMs !== undefined);
}

export const pauseRules: LeafRules<PauseTask> = {
  hasChildren: false,
  run: (task, step, run) => pauseNow(task, step, run).state,
  cancelTimers: cancelPauseTimers,
};

/** A Pause with `tasks`: waits (progress `waiting`) while PAUSED, then runs them in one lane. */
export const pauseWithTasksRules: ContainerRules<PauseTask> = {
  hasChildren: true,
  taskLists: (task) => [task.tasks ?? []],
  start: () => ({ ...EMPTY_PROGRESS, waiting: true }),
  started: (task, step, run) => {
    pauseNow(task, step, run);
  },
  lanes: (task) => oneLane(task.tasks),
  idle: (progress) => progress.waiting === true,
  cancelTimers: cancelPauseTimers,
};

/** Kestra's Pause outputs: the resume inputs under `onResume` (Lanner's older flows read them at the top level too). */
function resumeOutputs(values: JsonObject): JsonObject {
  return { ...values, onResume: values };
}

/** The inputs a resume gives a Pause: checked and defaulted against its `onResume`; taken as they are without one. */
export function pauseResumeInputs(
  task: PauseTask,
  inputs: JsonObject,
): { readonly ok: true; readonly values: JsonObject } | { readonly ok: false; readonly problems: readonly FlowProblem[] } {
  if (task.onResume === undefined) return { ok: true, values: inputs };
  const checked = coerceInputs(task.onResume, inputs);
  return checked.ok ? { ok: true, values: checked.values as JsonObject } : checked;
}

/**
 * Resumed (by a request or its duration): SUCCESS with the resume inputs as
 * outputs; with `tasks`, RUNNING with them, its children to run (the caller
 * advances it). Returns it afterwards.
 */
export function resumePause(task: PauseTask, step: FlowableStep, run: TaskRun, inputs: JsonObject): TaskRun {
  cancelPauseTimers(task, step, run);
  let resumed = step.moveRun(run, 'RUNNING');
  // The API refuses a resume whose inputs do not match; one that still gets here (the flow changed) fails the Pause.
  const checked = pauseResumeInputs(task, inputs);
  if (!checked.ok) {
    const error = `The resume inputs are not valid: ${checked.problems.map(formatProblem).join('; ')}`;
    return step.finishRun(resumed, task, 'FAILED', { error });
  }
  const outputs = resumeOutputs(checked.values);
  if (resumed.progress !== undefined) {
    resumed = step.putRun(copyRun(resumed, { outputs }));
    step.setProgress(resumed.id, { ...resumed.progress, waiting: false } as ContainerProgress);
    step.recordOutputs(resumed);
    return step.run(resumed.id);
  }
  resumed = step.moveRun(resumed, 'SUCCESS', { outputs });
  step.recordOutputs(resumed);
  return resumed;
}

/** Not resumed within its timeout: FAILED, or WARNING (SUCCESS with allowWarning) when its failure is allowed. Returns it ended. */
export function pauseTimedOut(task: PauseTask, step: FlowableStep, run: TaskRun): TaskRun {
  cancelPauseTimers(task, step, run);
  const after = typeof task.pauseTimeoutMs === 'number' ? ` after ${formatDuration(task.pauseTimeoutMs)}` : '';
  const error = `The pause timed out${after}`;
  if (task.allowFailure) return step.moveRun(step.moveRun(run, 'RUNNING'), task.allowWarning ? 'SUCCESS' : 'WARNING', { error });
  return step.moveRun(run, 'FAILED', { error });
}
