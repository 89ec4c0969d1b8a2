// Pause: PAUSED (and the execution with it) until a resume, its
// `pauseDuration` (a `pause-resume` timer: resumes by itself) or its
// `timeout` (a `pause-timeout` timer: fails, WARNING with allowFailure). The
// resume inputs are its outputs.
import type { PauseTask } from '@lanner/model';
import { formatDuration } from '../attempts';
import type { JsonObject, TaskRun } from '../types';
import type { FlowableStep, LeafRules } from './flowable';

export const pauseRules: LeafRules<PauseTask> = {
  hasChildren: false,
  run(task, step, run) {
    const paused = step.moveRun(run, 'PAUSED');
    if (task.pauseDurationMs !== undefined) step.scheduleTimer(run.id, 'pause-resume', 1, step.now + task.pauseDurationMs);
    if (task.pauseTimeoutMs !== undefined) step.scheduleTimer(run.id, 'pause-timeout', 1, step.now + task.pauseTimeoutMs);
    step.executionPaused();
    return paused.state;
  },
  cancelTimers(task, step, run) {
    step.cancelTimer(run.id, 'pause-resume', 1, task.pauseDurationMs !== undefined);
    step.cancelTimer(run.id, 'pause-timeout', 1, task.pauseTimeoutMs !== undefined);
  },
};

/** Resumed (by a request or its duration): SUCCESS with `inputs` as outputs. Returns it ended. */
export function resumePause(task: PauseTask, step: FlowableStep, run: TaskRun, inputs: JsonObject): TaskRun {
  pauseRules.cancelTimers?.(task, step, run);
  let resumed = step.moveRun(run, 'RUNNING');
  resumed = step.moveRun(resumed, 'SUCCESS', { outputs: inputs });
  step.recordOutputs(resumed);
  return resumed;
}

/** Not resumed within its timeout: FAILED, or WARNING (SUCCESS with allowWarning) when its failure is allowed. Returns it ended. */
export function pauseTimedOut(task: PauseTask, step: FlowableStep, run: TaskRun): TaskRun {
  pauseRules.cancelTimers?.(task, step, run);
  const error = `The pause timed out after ${formatDuration(task.pauseTimeoutMs ?? 0)}`;
  if (task.allowFailure) return step.moveRun(step.moveRun(run, 'RUNNING'), task.allowWarning ? 'SUCCESS' : 'WARNING', { error });
  return step.moveRun(run, 'FAILED', { error });
}
