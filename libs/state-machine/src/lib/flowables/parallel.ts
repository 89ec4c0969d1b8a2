// Parallel: one lane per task, up to `concurrency` at once (0: all).
import type { ParallelTask, Task } from '@lanner/model';
import { EMPTY_PROGRESS } from '../progress';
import type { ContainerRules } from './flowable';

export const parallelRules: ContainerRules<ParallelTask> = {
  hasChildren: true,
  taskLists: (task) => [task.tasks],
  start: () => EMPTY_PROGRESS,
  lanes: (task) => ({
    count: task.tasks.length,
    limit: task.concurrency || Infinity,
    tasksOf: (lane) => [task.tasks[lane] as Task],
  }),
};
