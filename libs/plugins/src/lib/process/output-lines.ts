import type { JsonObject, JsonValue } from '../json';

// Kestra's convention for a script to hand values back: a stdout line that is
// exactly `::{"outputs":{"key":"value"}}::`. Such lines become the task's `vars`
// (later lines win per key) and are not logged.
const OUTPUT_LINE = /^::(\{.*\})::$/;

/** The `outputs` map of an output line, or undefined when the line is ordinary output. */
export function parseOutputLine(line: string): JsonObject | undefined {
  const match = OUTPUT_LINE.exec(line.trim());
  if (!match) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(match[1]);
  } catch {
    return undefined;
  }
  if (!isObject(parsed)) return undefined;
  const outputs = parsed['outputs'];
  // Kestra also reads `metrics` here; Lanner has no task metrics yet, so such a line is consumed and ignored.
  return isObject(outputs) ? (outputs as JsonObject) : {};
}

function isObject(value: unknown): value is Record<string, JsonValue> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
