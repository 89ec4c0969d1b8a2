// AllowFailure: its tasks in one lane; a failure under it ends it WARNING
// (SUCCESS with allowWarning), so what contains it carries on.
import type { AllowFailureTask } from '@lanner/model';
import { EMPTY_PROGRESS } from '../progress';
import { type ContainerRules, oneLane } from './flowable';

export const allowFailureRules: ContainerRules<AllowFailureTask> = {
  hasChildren: true,
  failsAsWarning: true,
  taskLists: (task) => [task.tasks],
  start: () => EMPTY_PROGRESS,
  lanes: (task) => oneLane(task.tasks),
};
