// ForEach: `values` is rendered once, at its start (a list, or a template
// rendering to one); each value gets a lane running all its tasks, up to
// `concurrencyLimit` lanes at once (0: all). Values are kept as strings, as
// Kestra's `taskrun.value`.
import type { ForEachTask } from '@lanner/model';
import { EMPTY_PROGRESS } from '../progress';
import { renderItems } from '../render';
import type { ContainerRules } from './flowable';

export const forEachRules: ContainerRules<ForEachTask> = {
  hasChildren: true,
  taskLists: (task) => [task.tasks],
  start: (task, step, run) => {
    const values = renderItems(task.values, step.context(run), { now: step.now }).map((item) =>
      typeof item === 'string' ? item : JSON.stringify(item),
    );
    return { ...EMPTY_PROGRESS, values };
  },
  lanes: (task, progress) => ({
    count: progress.values?.length ?? 0,
    limit: task.concurrencyLimit || Infinity,
    tasksOf: () => task.tasks,
  }),
  laneValue: (progress, lane) => progress.values?.[lane],
};
