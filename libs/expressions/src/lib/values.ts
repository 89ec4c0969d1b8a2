/**
 * What a template can do with a value: read a member, print it, compare it, test
 * it. The context is JSON-like data (maps, lists, strings, numbers, booleans, null)
 * plus Dates (now()). Anything else a caller puts in the context (a function, a class
 * instance) is not data and cannot be read or called from a template.
 */
import type { WorkMeter } from './budget';
import { FORBIDDEN_NAMES } from './syntax';

/** The result of reading something that does not exist (distinct from null). */
export const MISSING: unique symbol = Symbol('missing');
export type Missing = typeof MISSING;

export type DataMap = Record<string, unknown>;

export function isDataMap(value: unknown): value is DataMap {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Reads `target[key]`: an own property of a plain map, or an index of a list.
 * Prototype members, string methods and properties of anything else are MISSING,
 * so no template can climb from data to the JS runtime.
 */
export function readMember(target: unknown, key: unknown): unknown {
  if (typeof key === 'string' && FORBIDDEN_NAMES.has(key)) return MISSING;
  if (Array.isArray(target)) {
    const index = typeof key === 'number' ? key : typeof key === 'string' && /^\d+$/.test(key) ? Number(key) : NaN;
    return Number.isInteger(index) && index >= 0 && index < target.length ? target[index] : MISSING;
  }
  if (isDataMap(target) && (typeof key === 'string' || typeof key === 'number')) {
    const name = String(key);
    return Object.prototype.hasOwnProperty.call(target, name) ? target[name] : MISSING;
  }
  return MISSING;
}

/** A type name for messages: messages describe types, never values (a value may be a secret). */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined || value === MISSING) return 'undefined';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Date) return 'a date';
  if (isDataMap(value)) return 'a map';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return 'an unsupported value';
}

/**
 * How a value prints. null prints as nothing (Pebble); lists and maps print as JSON
 * (as Kestra renders them), so `{{ inputs.list }}` yields a JSON array.
 */
export function toText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value) || isDataMap(value)) return toJson(value);
  throw new TypeError(`cannot print ${typeName(value)}`);
}

export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === undefined) return null;
    if (typeof item === 'function' || typeof item === 'symbol' || typeof item === 'bigint') return null;
    return item;
  });
}

/** Truthiness inside a template (`{% if %}`, `and`, `not`, `? :`): Pebble/Jinja style. */
export function isTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === MISSING || value === false) return false;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  if (typeof value === 'string') return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (isDataMap(value)) return hasOwnKeys(value);
  return true;
}

/** Kestra's truthiness of a rendered condition (its TruthUtils): falsy are "", "false", "0", "-0" after trimming. */
export function isRenderedTextTruthy(text: string): boolean {
  return !['', 'false', '0', '-0'].includes(text.trim());
}

export function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === MISSING) return true;
  if (typeof value === 'string' || Array.isArray(value)) return value.length === 0;
  if (isDataMap(value)) return !hasOwnKeys(value);
  return false;
}

/** Whether a map has a key, without listing them all (a condition in a loop over a big map stays cheap). */
function hasOwnKeys(map: DataMap): boolean {
  for (const key in map) if (Object.prototype.hasOwnProperty.call(map, key)) return true;
  return false;
}

/**
 * `==`: numbers by value, lists and maps structurally, dates by instant (Java equals as
 * Pebble uses it). Each node compared is charged to `meter`: two values that share
 * structure (a list holding the same list twice, nested) can be far larger to walk
 * than to hold.
 */
export function dataEquals(a: unknown, b: unknown, meter?: WorkMeter): boolean {
  meter?.charge(1);
  if (a === b) return true;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => dataEquals(item, b[i], meter));
  if (isDataMap(a) && isDataMap(b)) {
    const keys = Object.keys(a);
    meter?.charge(keys.length);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && dataEquals(a[k], b[k], meter))
    );
  }
  return false;
}

/**
 * Delimiters the worker's second pass would read as syntax: segment starts, and `#}`,
 * which nunjucks' lexer refuses outside a comment.
 */
const SEGMENT_DELIMITER = /\{[{%#]|#\}/g;

/**
 * Writes text so that the worker's `renderSecrets` pass reads it back unchanged: each
 * `{{`, `{%`, `{#` or `#}` becomes a segment printing it. Without this, a value carrying
 * `{{ secret('X') }}` (a webhook body, an input) would be resolved on the worker.
 * `endsBeforeSegment`: a trailing `{` would join the following segment's `{{`.
 */
export function escapeForWorker(text: string, endsBeforeSegment: boolean): string {
  const escaped = text.replace(SEGMENT_DELIMITER, (delimiter) => `{{ '${delimiter}' }}`);
  return endsBeforeSegment && escaped.endsWith('{') ? `${escaped.slice(0, -1)}{{ '{' }}` : escaped;
}
