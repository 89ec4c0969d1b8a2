// ForEach: `values` is rendered once, at its start (a list, or a template
// rendering to one); each value gets a lane running all its tasks, up to
// `concurrencyLimit` lanes at once (0: all). Values are kept as strings, as
// Kestra's `taskrun.value`. As in Kestra, a value that is null fails it, and a
// value repeated runs once.
import { ExpressionError } from '@lanner/expressions';
import type { ForEachTask } from '@lanner/model';
import { EMPTY_PROGRESS } from '../progress';
import { renderItems } from '../render';
import type { ContainerRules } from './flowable';

export const forEachRules: ContainerRules<ForEachTask> = {
  hasChildren: true,
  taskLists: (task) => [task.tasks],
  start: (task, step, run) => {
    const items = renderItems(task.values, step.context(run), step.renderOptions);
    const nulls = items.filter((item) => item === null || item === undefined).length;
    if (nulls > 0) {
      const written = typeof task.values === 'string' ? task.values : 'values';
      throw new ExpressionError(`found ${nulls} null value${nulls > 1 ? 's' : ''} in the ForEach values`, written);
    }
    const values = [...new Set(items.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))))];
    return { ...EMPTY_PROGRESS, values };
  },
  lanes: (task, progress) => ({
    count: progress.values?.length ?? 0,
    limit: task.concurrencyLimit || Infinity,
    tasksOf: () => task.tasks,
  }),
  laneValue: (progress, lane) => progress.values?.[lane],
};
