import type { FlowInput } from '../api/views';

// The run form's values: kept as the text of each field, turned into the JSON the
// API takes on submit. The API checks and converts them (its problems name
// `inputs.<id>`); this only shapes what the user typed.

export type FieldValues = Record<string, string | boolean>;

/** The initial value of each field: the input's default, as text. */
export function initialValues(inputs: readonly FlowInput[]): FieldValues {
  return Object.fromEntries(
    inputs.map((input) => {
      if (input.type === 'BOOLEAN') return [input.id, input.defaults === true || input.defaults === 'true'];
      if (input.defaults === undefined || input.defaults === null) return [input.id, ''];
      return [input.id, typeof input.defaults === 'string' ? input.defaults : JSON.stringify(input.defaults)];
    }),
  );
}

/** The `inputs` body: empty fields left out (the API applies defaults and reports missing required ones). */
export function inputsBody(inputs: readonly FlowInput[], values: FieldValues): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const input of inputs) {
    const value = values[input.id];
    if (typeof value === 'boolean') {
      body[input.id] = value;
      continue;
    }
    if (value === undefined || value.trim() === '') continue;
    if (input.type === 'INT' || input.type === 'FLOAT') body[input.id] = Number.isNaN(Number(value)) ? value : Number(value);
    else if (input.type === 'JSON' || input.type === 'ARRAY') body[input.id] = parseOrText(value);
    else body[input.id] = value;
  }
  return body;
}

function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The API's problems for the form, by input id (`inputs.name` → `name`); others under the empty key. */
export function fieldErrors(entries: readonly { path: string; message: string }[]): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const entry of entries) {
    const match = /^inputs\.([^.[\]]+)/.exec(entry.path);
    const key = match ? match[1] : '';
    errors[key] = errors[key] ? `${errors[key]}; ${entry.message}` : entry.message;
  }
  return errors;
}
