// Switch: its value is rendered once, at its start; the matching case (or
// `defaults`) runs in one lane. The branch is kept as `case:<key>`, '' for defaults.
import type { SwitchTask } from '@lanner/model';
import { EMPTY_PROGRESS } from '../progress';
import { renderText } from '../render';
import { type ContainerRules, oneLane } from './flowable';

const CASE = 'case:';

export const switchRules: ContainerRules<SwitchTask> = {
  hasChildren: true,
  taskLists: (task) => [...Object.values(task.cases), task.defaults ?? []],
  start: (task, step, run) => {
    const value = renderText(task.value, step.context(run), { now: step.now });
    return { ...EMPTY_PROGRESS, branch: Object.prototype.hasOwnProperty.call(task.cases, value) ? `${CASE}${value}` : '' };
  },
  lanes: (task, progress) => oneLane(progress.branch ? task.cases[progress.branch.slice(CASE.length)] : task.defaults),
};
