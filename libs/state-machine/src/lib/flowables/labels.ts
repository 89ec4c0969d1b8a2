// Labels: renders its labels and adds them to the execution's (values that
// do not render to text are kept as JSON). Given as one template, it must
// render to a JSON object (or a list of `{ key, value }`).
import { SYSTEM_LABEL_REFUSAL, systemLabelKeys, type LabelsTask } from '@lanner/model';
import { renderAny, renderText } from '../render';
import type { LeafRules } from './flowable';

/** The labels a single template rendered to, or a message saying why they are not labels. */
function parseLabels(text: string): Record<string, unknown> | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'labels: the rendered value is not JSON (expected an object or a list of { key, value })';
  }
  if (Array.isArray(parsed)) {
    const entries: [string, unknown][] = [];
    for (const item of parsed) {
      const pair = item as { key?: unknown; value?: unknown } | null;
      if (pair === null || typeof pair !== 'object' || typeof pair.key !== 'string')
        return 'labels: each item of the list must be { key, value } with a string key';
      entries.push([pair.key, pair.value]);
    }
    return Object.fromEntries(entries);
  }
  if (parsed === null || typeof parsed !== 'object') return 'labels: the rendered value must be a JSON object or list';
  return parsed as Record<string, unknown>;
}

export const labelsRules: LeafRules<LabelsTask> = {
  hasChildren: false,
  run(task, step, run) {
    const context = step.context(run);
    let rendered: Record<string, unknown>;
    if (typeof task.labels === 'string') {
      const parsed = parseLabels(renderText(task.labels, context, step.renderOptions));
      if (typeof parsed === 'string') return step.finishRun(run, task, 'FAILED', { error: parsed }).state;
      rendered = parsed;
    } else rendered = renderAny(task.labels, context, step.renderOptions) as Record<string, unknown>;
    const labels: Record<string, string> = {};
    for (const [key, value] of Object.entries(rendered)) labels[key] = typeof value === 'string' ? value : JSON.stringify(value);
    const reserved = systemLabelKeys(labels);
    if (reserved.length > 0) {
      return step.finishRun(run, task, 'FAILED', { error: `labels: '${reserved.join("', '")}': ${SYSTEM_LABEL_REFUSAL}` }).state;
    }
    step.addLabels(labels);
    return step.finishRun(run, task, 'SUCCESS').state;
  },
};
