import { InvalidRequest, type ProblemEntry } from '../http/api-errors';
import type { MultipartForm } from '../http/multipart-body';
import type { NewExecutionRequest } from './executions.service';

/** The form field (and query parameter) carrying labels, each as `key:value`. */
export const LABELS_FIELD = 'labels';

/**
 * A run request sent as `multipart/form-data`: each text field is the input of
 * that name (a repeated field is a list), repeated `labels` fields are
 * `key:value` labels, and file parts are the flow's FILE inputs.
 */
export function newExecutionFromForm(form: MultipartForm): NewExecutionRequest {
  const inputs: Record<string, unknown> = {};
  const labelTexts: string[] = [];
  for (const { name, value } of form.fields) {
    if (name === LABELS_FIELD) {
      labelTexts.push(value);
      continue;
    }
    const previous = inputs[name];
    inputs[name] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  const fileInputs = form.files.map((file) => ({
    name: file.name,
    ...(file.stored !== undefined ? { stored: file.stored } : {}),
  }));
  return { inputs, labels: parseLabels(labelTexts, LABELS_FIELD, 'body'), fileInputs };
}

/** `team:data` -> `{ team: 'data' }`; the value may hold colons, the key may not be empty. */
export function parseLabels(texts: readonly string[], path: string, what: string): Record<string, string> {
  const labels: Record<string, string> = {};
  const problems: ProblemEntry[] = [];
  texts.forEach((text, index) => {
    const at = text.indexOf(':');
    const key = at < 0 ? '' : text.slice(0, at).trim();
    if (key === '') {
      problems.push({ path: `${path}[${index}]`, message: 'must be key:value, with a key before the colon' });
      return;
    }
    labels[key] = text.slice(at + 1);
  });
  if (problems.length > 0) throw new InvalidRequest(`The ${what} is not valid`, problems);
  return labels;
}
