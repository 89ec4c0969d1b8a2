// Labels: renders its labels and adds them to the execution's (values that
// do not render to text are kept as JSON).
import type { LabelsTask } from '@lanner/model';
import { renderAny } from '../render';
import type { LeafRules } from './flowable';

export const labelsRules: LeafRules<LabelsTask> = {
  hasChildren: false,
  run(task, step, run) {
    const rendered = renderAny(task.labels, step.context(run), { now: step.now }) as Record<string, unknown>;
    const labels: Record<string, string> = {};
    for (const [key, value] of Object.entries(rendered)) labels[key] = typeof value === 'string' ? value : JSON.stringify(value);
    step.addLabels(labels);
    return step.finishRun(run, task, 'SUCCESS').state;
  },
};
