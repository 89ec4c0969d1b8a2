import { Readable } from 'node:stream';
import type { RunnableTask } from '@lanner/model';
import type { TaskFiles } from '@lanner/storage';
import type { JsonObject, JsonValue } from './json';

/** LANNER_STORAGE_OUTPUT_INLINE_MAX_BYTES' default: 1 MiB. */
export const DEFAULT_OUTPUT_INLINE_MAX_BYTES = 1024 * 1024;

/** One output value put in internal storage instead of the result. */
export interface StoredOutput {
  readonly path: string;
  readonly bytes: number;
  readonly uri: string;
}

function bytesOf(value: JsonValue): { text: string; extension: string } {
  return typeof value === 'string' ? { text: value, extension: '.txt' } : { text: JSON.stringify(value), extension: '.json' };
}

/**
 * Return's `value` and each of OutputValues' `values` larger than `maxBytes` (its text,
 * or its JSON for a list or a map) is stored as a file of the task run, and the output
 * holds that file's kestra:/// URI instead (read it back with `read()`, or give it to a
 * script through `inputFiles`): a large output never travels in a result frame or a
 * queue message. Other tasks' outputs are left as they are.
 */
export async function storeLargeOutputs(
  task: RunnableTask,
  outputs: JsonObject,
  files: TaskFiles | undefined,
  maxBytes: number,
): Promise<{ outputs: JsonObject; stored: StoredOutput[] }> {
  if (files === undefined) return { outputs, stored: [] };
  const stored: StoredOutput[] = [];
  const store = async (value: JsonValue, name: string, path: string): Promise<JsonValue> => {
    const { text, extension } = bytesOf(value);
    const bytes = Buffer.byteLength(text);
    if (bytes <= maxBytes) return value;
    const file = await files.upload(`${name}${extension}`, Readable.from([Buffer.from(text)]));
    stored.push({ path, bytes, uri: file.uri });
    return file.uri;
  };
  if (task.kind === 'Return' && outputs['value'] !== undefined) {
    return { outputs: { ...outputs, value: await store(outputs['value'], 'value', 'value') }, stored };
  }
  const values = outputs['values'];
  if (task.kind === 'OutputValues' && values !== null && typeof values === 'object' && !Array.isArray(values)) {
    const kept: JsonObject = {};
    for (const [key, value] of Object.entries(values)) {
      // The key becomes a file name; one that cannot be one (a slash, '..') keeps a neutral name.
      const name = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,100}$/.test(key) ? key : `value-${stored.length}`;
      kept[key] = await store(value, `values/${name}`, `values.${key}`);
    }
    return { outputs: { ...outputs, values: kept }, stored };
  }
  return { outputs, stored };
}
