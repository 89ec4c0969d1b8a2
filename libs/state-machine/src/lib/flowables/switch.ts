// Switch: its value is rendered once, at its start; the matching case (or
// `defaults`) runs in one lane. The branch is kept as `case:<key>`, '' for defaults.
// With no matching case and no defaults there is nothing to run: it fails, as
// Kestra's "No task found" does (allowFailure applies).
import type { SwitchTask } from '@lanner/model';
import { EMPTY_PROGRESS } from '../progress';
import { renderText } from '../render';
import { type ContainerRules, oneLane } from './flowable';

const CASE = 'case:';

export const switchRules: ContainerRules<SwitchTask> = {
  hasChildren: true,
  taskLists: (task) => [...Object.values(task.cases), task.defaults ?? []],
  start: (task, step, run) => {
    const value = renderText(task.value, step.context(run), step.renderOptions);
    return { ...EMPTY_PROGRESS, branch: Object.prototype.hasOwnProperty.call(task.cases, value) ? `${CASE}${value}` : '' };
  },
  lanes: (task, progress) => oneLane(progress.branch ? task.cases[progress.branch.slice(CASE.length)] : task.defaults),
  mainEnded(task, _step, _run, progress) {
    if (progress.branch || task.defaults !== undefined) return undefined;
    return {
      outcome: 'FAILED',
      error: `No task found: the value matches none of the cases (${Object.keys(task.cases).join(', ')}) and there are no defaults`,
    };
  },
};
