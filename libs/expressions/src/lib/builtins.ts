/**
 * The filters, tests and functions a template can use: Pebble's and Kestra's names
 * and argument orders. Held in Maps so that a name like `constructor` finds nothing.
 * A built-in throws BuiltinError with a reason that names types, never values.
 */
import { DateFormatError, formatDate, toInstant } from './date-format';
import { DataMap, dataEquals, isDataMap, isEmpty, isTruthy, toJson, toText, typeName } from './values';

export class BuiltinError extends Error {}

export interface Arguments {
  readonly args: readonly unknown[];
  readonly named: ReadonlyMap<string, unknown>;
}

/** A positional argument, or the same argument passed by name. */
function arg(a: Arguments, index: number, name: string): unknown {
  return a.named.has(name) ? a.named.get(name) : a.args[index];
}

export type Filter = (input: unknown, a: Arguments) => unknown;

function text(input: unknown, filter: string): string {
  if (input === null || input === undefined) return '';
  if (typeof input === 'string' || typeof input === 'number' || typeof input === 'boolean' || input instanceof Date) return toText(input);
  throw new BuiltinError(`'${filter}' expects text, got ${typeName(input)}`);
}

function list(input: unknown, filter: string): unknown[] {
  if (Array.isArray(input)) return input;
  throw new BuiltinError(`'${filter}' expects a list, got ${typeName(input)}`);
}

function map(input: unknown, filter: string): DataMap {
  if (isDataMap(input)) return input;
  throw new BuiltinError(`'${filter}' expects a map, got ${typeName(input)}`);
}

function num(input: unknown, filter: string): number {
  if (typeof input === 'number' && !Number.isNaN(input)) return input;
  throw new BuiltinError(`'${filter}' expects a number, got ${typeName(input)}`);
}

function str(value: unknown, what: string): string {
  if (typeof value === 'string') return value;
  throw new BuiltinError(`${what} must be a string, got ${typeName(value)}`);
}

function newMap(entries: [string, unknown][]): DataMap {
  // Object.fromEntries defines own properties, so a "__proto__" key stays data.
  return Object.fromEntries(entries);
}

function compareForSort(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  throw new BuiltinError(`'sort' sorts numbers or strings, got ${typeName(a)} and ${typeName(b)}`);
}

export const FILTERS: ReadonlyMap<string, Filter> = new Map<string, Filter>([
  ['upper', (input) => text(input, 'upper').toUpperCase()],
  ['lower', (input) => text(input, 'lower').toLowerCase()],
  ['capitalize', (input) => text(input, 'capitalize').replace(/^./, (c) => c.toUpperCase())],
  ['title', (input) => text(input, 'title').replace(/(^|\s)(\S)/g, (_m, space: string, c: string) => space + c.toUpperCase())],
  ['trim', (input) => text(input, 'trim').trim()],
  // Pebble: the fallback when the input is null, empty text, an empty list or map
  // (the evaluator also lets an undefined input through to this filter).
  ['default', (input, a) => (isEmpty(input) ? arg(a, 0, 'default') ?? null : input)],
  ['json', (input) => toJson(input ?? null)],
  ['toJson', (input) => toJson(input ?? null)],
  [
    'fromJson',
    (input) => {
      try {
        return JSON.parse(text(input, 'fromJson')) as unknown;
      } catch {
        throw new BuiltinError("'fromJson' expects JSON text");
      }
    },
  ],
  [
    'date',
    (input, a) => {
      if (a.named.has('existingFormat')) throw new BuiltinError("'date' does not support existingFormat; pass an ISO-8601 date");
      const format = arg(a, 0, 'format') ?? 'iso8601';
      const timeZone = arg(a, 1, 'timeZone') ?? 'UTC';
      try {
        return formatDate(toInstant(input), str(format, "'date' format"), str(timeZone, "'date' timeZone"));
      } catch (error) {
        if (error instanceof DateFormatError) throw new BuiltinError(`'date' ${error.message}`);
        throw error;
      }
    },
  ],
  [
    'length',
    (input) => {
      if (input === null || input === undefined) return 0;
      if (typeof input === 'string' || Array.isArray(input)) return input.length;
      if (isDataMap(input)) return Object.keys(input).length;
      throw new BuiltinError(`'length' expects text, a list or a map, got ${typeName(input)}`);
    },
  ],
  ['first', (input) => (typeof input === 'string' ? (input[0] ?? null) : (list(input, 'first')[0] ?? null))],
  ['last', (input) => (typeof input === 'string' ? (input[input.length - 1] ?? null) : (list(input, 'last').at(-1) ?? null))],
  ['join', (input, a) => list(input, 'join').map((item) => toText(item)).join(str(arg(a, 0, 'separator') ?? '', "'join' separator"))],
  [
    'replace',
    (input, a) => {
      const subject = text(input, 'replace');
      const first = arg(a, 0, 'search');
      // Pebble passes a map of replacements; Kestra also accepts (search, replacement).
      const pairs: [string, string][] = isDataMap(first)
        ? Object.entries(first).map(([k, v]) => [k, toText(v)])
        : [[str(first, "'replace' search"), toText(arg(a, 1, 'replacement') ?? '')]];
      return pairs.reduce((acc, [search, replacement]) => (search === '' ? acc : acc.split(search).join(replacement)), subject);
    },
  ],
  [
    'split',
    (input, a) => {
      const delimiter = str(arg(a, 0, 'delimiter'), "'split' delimiter");
      const limit = arg(a, 1, 'limit');
      const parts = text(input, 'split').split(delimiter);
      // Java's limit: at most `limit` parts, the last one keeps the rest.
      if (typeof limit === 'number' && limit > 0 && parts.length > limit) {
        return [...parts.slice(0, limit - 1), parts.slice(limit - 1).join(delimiter)];
      }
      return parts;
    },
  ],
  ['abs', (input) => Math.abs(num(input, 'abs'))],
  [
    'number',
    (input, a) => {
      const type = arg(a, 0, 'type');
      const value = typeof input === 'number' ? input : typeof input === 'string' && input.trim() !== '' ? Number(input.trim()) : NaN;
      if (Number.isNaN(value)) throw new BuiltinError("'number' expects a numeric string");
      if ((type === 'INT' || type === 'LONG') && !Number.isInteger(value)) throw new BuiltinError(`'number' expects an integer for ${type}`);
      return value;
    },
  ],
  ['keys', (input) => Object.keys(map(input, 'keys'))],
  ['values', (input) => Object.values(map(input, 'values'))],
  ['sort', (input) => [...list(input, 'sort')].sort(compareForSort)],
  ['reverse', (input) => (typeof input === 'string' ? [...input].reverse().join('') : [...list(input, 'reverse')].reverse())],
  ['unique', (input) => list(input, 'unique').filter((item, i, all) => all.findIndex((other) => dataEquals(other, item)) === i)],
  ['base64encode', (input) => Buffer.from(text(input, 'base64encode'), 'utf8').toString('base64')],
  ['base64decode', (input) => Buffer.from(text(input, 'base64decode'), 'base64').toString('utf8')],
  ['urlencode', (input) => encodeURIComponent(text(input, 'urlencode'))],
  [
    'urldecode',
    (input) => {
      try {
        return decodeURIComponent(text(input, 'urldecode'));
      } catch {
        throw new BuiltinError("'urldecode' expects URL-encoded text");
      }
    },
  ],
  ['string', (input) => toText(input)],
]);

export type Test = (input: unknown, args: readonly unknown[]) => boolean;

/** `is` tests. `defined`, `null` and `empty` see an undefined input instead of failing (the evaluator's job). */
export const TESTS: ReadonlyMap<string, Test> = new Map<string, Test>([
  ['defined', (input) => input !== undefined],
  ['undefined', (input) => input === undefined],
  ['null', (input) => input === null || input === undefined],
  ['none', (input) => input === null || input === undefined],
  ['empty', (input) => isEmpty(input)],
  ['even', (input) => num(input, 'even') % 2 === 0],
  ['odd', (input) => Math.abs(num(input, 'odd') % 2) === 1],
  ['iterable', (input) => Array.isArray(input)],
  ['map', (input) => isDataMap(input)],
  ['number', (input) => typeof input === 'number'],
  ['string', (input) => typeof input === 'string'],
  ['true', (input) => input === true],
  ['false', (input) => input === false],
  ['truthy', (input) => isTruthy(input)],
  ['divisibleby', (input, args) => num(input, 'divisibleby') % num(args[0], 'divisibleby') === 0],
  ['startsWith', (input, args) => text(input, 'startsWith').startsWith(str(args[0], "'startsWith' prefix"))],
  ['endsWith', (input, args) => text(input, 'endsWith').endsWith(str(args[0], "'endsWith' suffix"))],
]);

/** The longest list `range()` builds: a template is not a place for bulk data. */
export const RANGE_LIMIT = 10_000;

export function range(a: Arguments): number[] {
  const start = num(arg(a, 0, 'start'), 'range');
  const end = num(arg(a, 1, 'end'), 'range');
  const step = num(arg(a, 2, 'step') ?? 1, 'range');
  if (step === 0) throw new BuiltinError("'range' step must not be 0");
  const size = Math.floor((end - start) / step) + 1;
  if (size > RANGE_LIMIT) throw new BuiltinError(`'range' would build more than ${RANGE_LIMIT} numbers`);
  // Pebble's range includes its end.
  return Array.from({ length: Math.max(0, size) }, (_v, i) => start + i * step);
}

export function extremum(a: Arguments, pick: (x: number, y: number) => number, name: string): number {
  const values = a.args.length === 1 && Array.isArray(a.args[0]) ? a.args[0] : a.args;
  if (values.length === 0) throw new BuiltinError(`'${name}' needs at least one number`);
  return values.map((v) => num(v, name)).reduce((a, b) => pick(a, b));
}

export function newDataMap(entries: [string, unknown][]): DataMap {
  return newMap(entries);
}
