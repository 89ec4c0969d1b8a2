// WaitFor: runs its tasks in one lane, then renders its condition; while it is
// false the loop waits `checkFrequency.interval` (a `waitfor-next` timer) and
// runs them again as the next iteration, until `maxIterations` or
// `maxDuration` (FAILED with `failOnMaxReached`, else the last outcome).
// Its outputs hold `iterationCount`: the iteration running (1 first), then
// the number of iterations it ran.
import type { WaitForTask } from '@lanner/model';
import { EMPTY_PROGRESS } from '../progress';
import { renderCondition, renderFailure } from '../render';
import { copyRun } from '../shapes';
import type { ContainerProgress, TaskRun } from '../types';
import { type ContainerRules, type FlowableStep, oneLane } from './flowable';

export const waitForRules: ContainerRules<WaitForTask> = {
  hasChildren: true,
  taskLists: (task) => [task.tasks],
  start: (_task, step) => ({ ...EMPTY_PROGRESS, iteration: 0, startedAt: step.now }),
  startOutputs: () => ({ iterationCount: 1 }),
  lanes: (task) => oneLane(task.tasks),
  iteration: (progress) => (progress.iteration !== undefined && progress.iteration > 0 ? progress.iteration : undefined),
  idle: (progress) => progress.waiting === true,
  mainEnded(task, step, run, progress, outcome) {
    if (outcome !== 'SUCCESS' && outcome !== 'WARNING') return undefined;
    let done: boolean;
    try {
      done = renderCondition(task.condition, step.context(run), step.renderOptions);
    } catch (error) {
      step.putRun(copyRun(run, { error: renderFailure(error) }));
      return { outcome: 'FAILED' };
    }
    if (done) return { outcome };
    const iteration = progress.iteration ?? 0;
    const frequency = task.checkFrequency;
    const maxIterationsReached = frequency.maxIterations !== undefined && iteration + 1 >= frequency.maxIterations;
    const maxDurationReached =
      frequency.maxDurationMs !== undefined && step.now - (progress.startedAt ?? step.now) >= frequency.maxDurationMs;
    if (maxIterationsReached || maxDurationReached) {
      if (!task.failOnMaxReached) return { outcome };
      step.putRun(
        copyRun(step.run(run.id), { error: `WaitFor: the condition was still false after ${iteration + 1} iterations` }),
      );
      return { outcome: 'FAILED' };
    }
    step.setProgress(run.id, { ...progress, waiting: true });
    step.scheduleTimer(run.id, 'waitfor-next', iteration, step.now + frequency.intervalMs);
    return 'wait';
  },
};

/**
 * Its `waitfor-next` timer for `iteration` fired: the next iteration starts
 * from a fresh main branch. False when the timer is stale (the loop moved on or ended).
 */
export function startNextIteration(step: FlowableStep, run: TaskRun, iteration: number): boolean {
  const progress: ContainerProgress | undefined = run.progress;
  if (run.state !== 'RUNNING' || progress?.waiting !== true || progress.iteration !== iteration) return false;
  step.recordOutputs(step.putRun(copyRun(run, { outputs: { iterationCount: iteration + 2 } })));
  step.setProgress(run.id, {
    ...progress,
    waiting: false,
    iteration: iteration + 1,
    stage: 'main',
    nextLane: 0,
    running: 0,
    failed: 0,
    warned: 0,
    killed: 0,
  });
  return true;
}
