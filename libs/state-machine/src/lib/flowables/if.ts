// If: its condition is rendered once, at its start; `then` or `else` runs in one lane.
import type { IfTask } from '@lanner/model';
import { EMPTY_PROGRESS } from '../progress';
import { renderCondition } from '../render';
import { type ContainerRules, oneLane } from './flowable';

export const ifRules: ContainerRules<IfTask> = {
  hasChildren: true,
  taskLists: (task) => [task.then, task.else ?? []],
  start: (task, step, run) => ({
    ...EMPTY_PROGRESS,
    branch: renderCondition(task.condition, step.context(run), step.renderOptions) ? 'then' : 'else',
  }),
  lanes: (task, progress) => oneLane(progress.branch === 'then' ? task.then : task.else),
};
