// Sequential: its tasks one after the other, in one lane.
import type { SequentialTask } from '@lanner/model';
import { EMPTY_PROGRESS } from '../progress';
import { type ContainerRules, oneLane } from './flowable';

export const sequentialRules: ContainerRules<SequentialTask> = {
  hasChildren: true,
  taskLists: (task) => [task.tasks],
  start: () => EMPTY_PROGRESS,
  lanes: (task) => oneLane(task.tasks),
};
