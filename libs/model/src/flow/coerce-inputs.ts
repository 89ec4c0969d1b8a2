// Input values checked and converted to their declared types when an execution
// is created (from the API, a trigger or a parent flow), so tasks only ever see
// well-typed inputs.

import type { FlowInput, FlowProblem, InputType, TemplatedValue } from './flow.types';
import { parseIsoDuration } from './iso-duration';
import { itemPath } from './yaml-path';

/** A coerced input value: JSON-like (DATETIME and DURATION stay ISO strings). */
export type InputValue = TemplatedValue;

export type CoerceInputsResult =
  | { readonly ok: true; readonly values: Readonly<Record<string, InputValue>> }
  | { readonly ok: false; readonly problems: readonly FlowProblem[] };

/** A string holding a template, left for the executor to render. */
export function isTemplate(value: unknown): value is string {
  return typeof value === 'string' && /\{\{|\{%/.test(value);
}

/**
 * Checks and converts `values` against the flow's declared `inputs`: applies
 * defaults (template defaults are kept as strings for the executor to render),
 * refuses missing required inputs and unknown input ids, and converts each value
 * to its type. Optional inputs with neither value nor default are `null`.
 */
export function coerceInputs(inputs: readonly FlowInput[], values: Readonly<Record<string, unknown>>): CoerceInputsResult {
  const problems: FlowProblem[] = [];
  const declared = new Set(inputs.map((input) => input.id));
  const given = values !== null && typeof values === 'object' ? values : {};
  for (const id of Object.keys(given)) {
    if (!declared.has(id)) {
      const known = inputs.length === 0 ? 'the flow declares no inputs' : `declared: ${inputs.map((i) => i.id).join(', ')}`;
      problems.push({ path: `inputs.${id}`, message: `unknown input (${known})` });
    }
  }
  const entries: [string, InputValue][] = [];
  for (const input of inputs) {
    const path = `inputs.${input.id}`;
    const raw = Object.prototype.hasOwnProperty.call(given, input.id) ? given[input.id] : undefined;
    if (raw !== undefined && raw !== null) {
      const value = coerceInputValue(input, raw, path, problems);
      if (value !== undefined) entries.push([input.id, value]);
    } else if (input.defaults !== undefined && input.defaults !== null) {
      if (isTemplate(input.defaults)) entries.push([input.id, input.defaults]);
      else {
        const value = coerceInputValue(input, input.defaults, path, problems);
        if (value !== undefined) entries.push([input.id, value]);
      }
    } else if (input.required) {
      problems.push({ path, message: 'required' });
    } else {
      entries.push([input.id, null]);
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, values: Object.fromEntries(entries) };
}

/** The rules of one input as coercion needs them. */
export type InputRules = Pick<FlowInput, 'type' | 'validator' | 'min' | 'max' | 'values' | 'itemType'>;

/** Converts one value to the input's type; pushes a problem and returns `undefined` when it cannot. */
export function coerceInputValue(input: InputRules, raw: unknown, path: string, problems: FlowProblem[]): InputValue | undefined {
  const fail = (message: string): undefined => {
    problems.push({ path, message });
    return undefined;
  };
  switch (input.type) {
    case 'STRING': {
      const text = scalarText(raw);
      if (text === undefined) return fail('must be a string');
      if (input.validator !== undefined) {
        const pattern = compileValidator(input.validator);
        if (pattern === undefined) return fail('the input validator is not a valid regular expression');
        if (!pattern.test(text)) return fail(`must match ${input.validator}`);
      }
      return text;
    }
    case 'INT': {
      const value = typeof raw === 'string' && /^\s*[-+]?\d+\s*$/.test(raw) ? Number(raw) : raw;
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return fail('must be an integer');
      return withinBounds(value, input, fail);
    }
    case 'FLOAT': {
      const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
      if (typeof value !== 'number' || !Number.isFinite(value)) return fail('must be a number');
      return withinBounds(value, input, fail);
    }
    case 'BOOLEAN': {
      if (typeof raw === 'boolean') return raw;
      if (typeof raw === 'string' && /^(true|false)$/i.test(raw.trim())) return raw.trim().toLowerCase() === 'true';
      return fail('must be true or false');
    }
    case 'DATETIME': {
      const iso = raw instanceof Date ? (Number.isNaN(raw.getTime()) ? undefined : raw.toISOString()) : isoDateTime(raw);
      return iso ?? fail('must be an ISO-8601 date-time with a time zone, such as 2026-01-31T08:00:00Z');
    }
    case 'DURATION': {
      if (typeof raw === 'string' && parseIsoDuration(raw) !== undefined) return raw.trim();
      return fail('must be an ISO-8601 duration such as PT30S, PT10M or P1D');
    }
    case 'JSON': {
      if (typeof raw === 'string') {
        const parsed = parseJson(raw);
        return parsed === undefined ? fail('must be valid JSON') : parsed;
      }
      const json = toJson(raw);
      return json === undefined ? fail('must be a JSON value') : json;
    }
    case 'ARRAY': {
      const list = typeof raw === 'string' ? parseJson(raw) : toJson(raw);
      if (!Array.isArray(list)) return fail('must be a list (or a string holding a JSON list)');
      if (input.itemType === undefined) return list;
      const itemType: InputType = input.itemType;
      const before = problems.length;
      const items = list.map((item, index) => coerceInputValue({ type: itemType }, item, itemPath(path, index), problems));
      return problems.length > before ? undefined : items.map((item) => item ?? null);
    }
    case 'SELECT': {
      const text = scalarText(raw);
      const allowed = input.values ?? [];
      if (text === undefined || !allowed.includes(text)) return fail(`must be one of ${allowed.join(', ')}`);
      return text;
    }
    case 'FILE': {
      // The file itself is streamed to internal storage by whoever received it (the API's
      // multipart upload); the input holds its URI, which tasks read on their worker.
      if (typeof raw === 'string' && /^kestra:\/\/\/\S+$/.test(raw)) return raw;
      return fail('must be a file (an internal storage URI kestra:///...)');
    }
    default:
      return fail('has an unsupported input type');
  }
}

/** Kestra matches the whole value against the validator (Java's `Pattern.matches`). */
export function compileValidator(validator: string): RegExp | undefined {
  try {
    return new RegExp(`^(?:${validator})$`, 'u');
  } catch {
    try {
      return new RegExp(`^(?:${validator})$`);
    } catch {
      return undefined;
    }
  }
}

function withinBounds(value: number, input: InputRules, fail: (message: string) => undefined): number | undefined {
  if (input.min !== undefined && value < input.min) return fail(`must be >= ${input.min}`);
  if (input.max !== undefined && value > input.max) return fail(`must be <= ${input.max}`);
  return value;
}

function scalarText(raw: unknown): string | undefined {
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
  if (typeof raw === 'boolean') return String(raw);
  return undefined;
}

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

function isoDateTime(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  const match = ISO_DATE_TIME.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second] = match.map(Number);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || (second || 0) > 59) {
    return undefined;
  }
  const date = new Date(text.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function parseJson(text: string): InputValue | undefined {
  try {
    return toJson(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** The value if it is plain JSON data (no functions, no cycles, no non-finite numbers). */
function toJson(value: unknown, depth = 0): InputValue | undefined {
  if (depth > 100) return undefined;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (Array.isArray(value)) {
    const items: InputValue[] = [];
    for (const item of value) {
      const json = toJson(item, depth + 1);
      if (json === undefined) return undefined;
      items.push(json);
    }
    return items;
  }
  if (typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value))) {
    const entries: [string, InputValue][] = [];
    for (const [key, item] of Object.entries(value)) {
      const json = toJson(item, depth + 1);
      if (json === undefined) return undefined;
      entries.push([key, json]);
    }
    return Object.fromEntries(entries);
  }
  return undefined;
}
