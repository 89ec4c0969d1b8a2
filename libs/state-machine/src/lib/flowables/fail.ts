// Fail: fails with its rendered `errorMessage`, or succeeds when its
// `condition` renders false.
import type { FailTask } from '@lanner/model';
import { renderCondition, renderText } from '../render';
import type { LeafRules } from './flowable';

export const failRules: LeafRules<FailTask> = {
  hasChildren: false,
  run(task, step, run) {
    const context = step.context(run);
    const options = { now: step.now };
    if (task.condition !== undefined && !renderCondition(task.condition, context, options)) {
      return step.finishRun(run, task, 'SUCCESS').state;
    }
    return step.finishRun(run, task, 'FAILED', { error: renderText(task.errorMessage, context, options) }).state;
  },
};
