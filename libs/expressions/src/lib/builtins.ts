/**
 * The filters, tests and functions a template can use: Pebble's and Kestra's names
 * and argument orders. Held in Maps so that a name like `constructor` finds nothing.
 * A built-in throws BuiltinError with a reason that names types, never values.
 */
import { md5, sha1 } from '@noble/hashes/legacy';
import { sha256, sha512 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import { stringify as toYaml } from 'yaml';
import { DateFormatError, formatDate, localeLoaded, parseDate, toInstant } from './date-format';
import type { Budget } from './budget';
import { runJq } from './jq';
import { formatCount } from './limits';
import { formatNumber, NumberFormatError } from './number-format';
import { type CompiledRegex, compileRegex, RegexError, replaceAll } from './regex';
import { DataMap, isDataMap, isEmpty, isTruthy, toText, typeName } from './values';

export class BuiltinError extends Error {}

export interface Arguments {
  readonly args: readonly unknown[];
  readonly named: ReadonlyMap<string, unknown>;
}

/** A positional argument, or the same argument passed by name. */
function arg(a: Arguments, index: number, name: string): unknown {
  return a.named.has(name) ? a.named.get(name) : a.args[index];
}

/** A filter: its input, its arguments, and the rendering's budget its work and results count against. */
export type Filter = (input: unknown, a: Arguments, budget: Budget) => unknown;

function text(input: unknown, filter: string): string {
  if (input === null || input === undefined) return '';
  if (typeof input === 'string' || typeof input === 'number' || typeof input === 'boolean' || input instanceof Date)
    return toText(input);
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

/**
 * A text filter whose result can be longer than its input by a small factor (case
 * mapping, percent-encoding): its input is bounded already, so the result is checked
 * once built.
 */
function textMapped(name: string, change: (subject: string) => string): Filter {
  return (input, _a, budget) => {
    const subject = text(input, name);
    budget.charge(subject.length);
    const result = change(subject);
    budget.text(result.length, `'${name}'`);
    return result;
  };
}

/** How many times `search` (not empty) occurs in `subject`, without building anything. */
function occurrences(subject: string, search: string, budget: Budget): number {
  budget.charge(subject.length);
  let found = 0;
  for (let at = subject.indexOf(search); at !== -1; at = subject.indexOf(search, at + search.length)) found += 1;
  return found;
}

/** Reverses text by code points (a surrogate pair stays one character) without an array of characters. */
function reverseText(subject: string, budget: Budget): string {
  budget.charge(subject.length);
  let out = '';
  for (let i = subject.length - 1; i >= 0; i--) {
    const low = subject.charCodeAt(i);
    if (i > 0 && low >= 0xdc00 && low <= 0xdfff) {
      const high = subject.charCodeAt(i - 1);
      if (high >= 0xd800 && high <= 0xdbff) {
        out += subject.slice(i - 1, i + 1);
        i--;
        continue;
      }
    }
    out += subject[i];
  }
  return out;
}

/**
 * Sorted numbers or sorted strings. The sort itself is native (a typed array for
 * numbers, the default order for strings, which is `<` on UTF-16 code units): n log n
 * without a JS comparator called n log n times.
 */
function sorted(items: readonly unknown[], budget: Budget): unknown[] {
  budget.charge(items.length * Math.max(1, Math.ceil(Math.log2(items.length + 1))));
  if (items.length < 2) return [...items];
  const kind = typeof items[0];
  const other = items.find((item) => typeof item !== kind || (kind !== 'number' && kind !== 'string'));
  if (other !== undefined)
    throw new BuiltinError(`'sort' sorts numbers or strings, got ${typeName(items[0])} and ${typeName(other)}`);
  if (kind === 'string') return [...(items as string[])].sort();
  return Array.from(Float64Array.from(items as number[]).sort());
}

/**
 * The first of each group of equal items (`==`), in order, in one pass: items are
 * grouped by a canonical key (map keys sorted, so key order does not matter, as for
 * `==`). Keys of lists and maps are built once per distinct object and count against
 * the text limit, so a list holding the same nested list many times stays cheap.
 */
function uniqueItems(items: readonly unknown[], budget: Budget, name: string): unknown[] {
  const seenPrimitives = new Set<unknown>();
  const seenStructures = new Set<string>();
  const keys = new Map<object, string>();
  const keyOf = (value: unknown): string => {
    budget.charge(1);
    if (value === null || value === undefined) return 'n';
    if (typeof value === 'string') return JSON.stringify(value);
    if (typeof value === 'number' || typeof value === 'boolean') return `${(typeof value)[0]}${String(value)}`;
    if (value instanceof Date) return `t${value.getTime()}`;
    if (typeof value !== 'object') return `?${typeof value}`;
    const known = keys.get(value);
    if (known !== undefined) return known;
    let key: string;
    if (Array.isArray(value)) {
      key = `[${value.map(keyOf).join(',')}]`;
    } else {
      const entries = Object.keys(value).sort();
      budget.charge(entries.length * Math.max(1, Math.ceil(Math.log2(entries.length + 1))));
      key = `{${entries.map((k) => `${JSON.stringify(k)}:${keyOf((value as DataMap)[k])}`).join(',')}}`;
    }
    budget.text(key.length, `'${name}'`);
    keys.set(value, key);
    return key;
  };
  return items.filter((item) => {
    budget.charge(1);
    if (typeof item !== 'object' || item === null) {
      // -0 and 0 are one item, as for `==`.
      const primitive = item === undefined ? null : item;
      if (seenPrimitives.has(primitive)) return false;
      seenPrimitives.add(primitive);
      return true;
    }
    const key = keyOf(item);
    if (seenStructures.has(key)) return false;
    seenStructures.add(key);
    return true;
  });
}

/** A date filter's work, with a date error named after the filter. */
function dated<T>(name: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof DateFormatError) throw new BuiltinError(`'${name}' ${error.message}`);
    throw error;
  }
}

/** What reading a locale's names costs the budget (some milliseconds: as many steps as a few thousand template nodes). */
const LOCALE_LOAD_ITEMS = 500_000;

/** Charges the budget for a locale whose names are not read yet. */
function chargeLocale(locale: string | undefined, budget: Budget): void {
  if (!localeLoaded(locale)) budget.charge(LOCALE_LOAD_ITEMS);
}

/** An optional text argument (absent or null: undefined). */
function optionalText(a: Arguments, index: number, name: string, filter: string): string | undefined {
  const value = arg(a, index, name);
  return value === undefined || value === null ? undefined : str(value, `'${filter}' ${name}`);
}

/**
 * A date filter's input as an instant: with `existingFormat`, text read with that Java
 * pattern (month and day names in `locale`, a time without an offset read in the time zone);
 * else a Date, ISO-8601 text or epoch seconds.
 */
function dateInput(input: unknown, existingFormat: string | undefined, timeZone: string, locale: string | undefined): Date {
  if (existingFormat === undefined || input instanceof Date || typeof input === 'number') return toInstant(input);
  if (typeof input !== 'string') throw new DateFormatError(`with existingFormat expects text, got ${typeName(input)}`);
  return parseDate(input.trim(), existingFormat, timeZone, locale);
}

/** Epoch nanoseconds of a date input as text (digits past milliseconds kept from ISO text). */
function epochNanos(input: unknown, name: string, a: Arguments): bigint {
  const timeZone = str(arg(a, 0, 'timeZone') ?? 'UTC', `'${name}' timeZone`);
  const existingFormat = optionalText(a, 1, 'existingFormat', name);
  return dated(name, () => {
    const instant = dateInput(input, existingFormat, timeZone, undefined);
    let extra = 0n;
    if (typeof input === 'string' && existingFormat === undefined) {
      const fraction = /\.(\d{4,9})/.exec(input);
      if (fraction) extra = BigInt(fraction[1].slice(3).padEnd(6, '0'));
    }
    return BigInt(instant.getTime()) * 1_000_000n + extra;
  });
}

const CHRONO_UNITS: ReadonlyMap<string, number> = new Map([
  ['NANOS', 1e-6],
  ['MICROS', 1e-3],
  ['MILLIS', 1],
  ['SECONDS', 1_000],
  ['MINUTES', 60_000],
  ['HOURS', 3_600_000],
  ['HALF_DAYS', 43_200_000],
  ['DAYS', 86_400_000],
  ['WEEKS', 604_800_000],
]);

function dateAdd(input: unknown, a: Arguments, budget: Budget): string {
  const amount = num(arg(a, 0, 'amount'), 'dateAdd');
  const unit = str(arg(a, 1, 'unit'), "'dateAdd' unit");
  const format = str(arg(a, 2, 'format') ?? 'iso8601', "'dateAdd' format");
  const timeZone = str(arg(a, 3, 'timeZone') ?? 'UTC', "'dateAdd' timeZone");
  const existingFormat = optionalText(a, 4, 'existingFormat', 'dateAdd');
  const locale = optionalText(a, 5, 'locale', 'dateAdd');
  chargeLocale(locale, budget);
  return dated('dateAdd', () => {
    const instant = dateInput(input, existingFormat, timeZone, locale);
    let result: Date;
    const perUnit = CHRONO_UNITS.get(unit);
    if (perUnit !== undefined) {
      result = new Date(instant.getTime() + amount * perUnit);
    } else if (unit === 'MONTHS' || unit === 'YEARS' || unit === 'DECADES' || unit === 'CENTURIES') {
      // Calendar units on the UTC calendar, the day clamped to the month's end as in java.time.
      const months = amount * { MONTHS: 1, YEARS: 12, DECADES: 120, CENTURIES: 1200 }[unit];
      const target = new Date(instant.getTime());
      const day = target.getUTCDate();
      target.setUTCDate(1);
      target.setUTCMonth(target.getUTCMonth() + months);
      const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
      target.setUTCDate(Math.min(day, lastDay));
      result = target;
    } else {
      throw new BuiltinError(
        `'dateAdd' unit must be one of ${[...CHRONO_UNITS.keys(), 'MONTHS', 'YEARS', 'DECADES', 'CENTURIES'].join(', ')}`,
      );
    }
    return formatDate(result, format, timeZone, locale);
  });
}

/** Kestra's slugify: accents dropped, lower case, runs of anything but letters and digits as one '-'. */
function slugify(subject: string): string {
  return subject
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function escapeChars(value: unknown, type: string, budget: Budget): unknown {
  budget.charge(1);
  if (Array.isArray(value)) return value.map((item) => escapeChars(item, type, budget));
  if (isDataMap(value)) return newMap(Object.entries(value).map(([k, v]) => [k, escapeChars(v, type, budget)]));
  const subject = toText(value ?? '');
  const [quote, replacement] = type === 'SHELL' ? ["'", "'\\''"] : type === 'SINGLE' ? ["'", "\\'"] : ['"', '\\"'];
  const found = occurrences(subject, quote, budget);
  budget.text(subject.length + found * (replacement.length - 1), "'escapeChar'");
  return subject.split(quote).join(replacement);
}

function indented(input: unknown, a: Arguments, budget: Budget, name: string, newline: boolean): string {
  const subject = text(input, name);
  const amount = num(arg(a, 0, 'amount'), name);
  const prefix = str(arg(a, 1, 'prefix') ?? ' ', `'${name}' prefix`);
  if (!Number.isInteger(amount) || amount < 0) throw new BuiltinError(`'${name}' amount must be a whole number`);
  const lines = subject.split(/\r?\n/);
  const pad = prefix.repeat(Math.min(amount, budget.limits.maxTextLength));
  budget.text(subject.length + lines.length * pad.length + 1, `'${name}'`);
  // indent leaves the first line as it is (it follows text already on its line); nindent starts a new line.
  const body = lines.map((line, i) => (i === 0 && !newline ? line : line === '' ? line : pad + line)).join('\n');
  return newline ? `\n${body}` : body;
}

function hashed(name: string, digest: (bytes: Uint8Array) => Uint8Array): Filter {
  return (input, _a, budget) => {
    const subject = text(input, name);
    budget.charge(subject.length);
    return bytesToHex(digest(utf8ToBytes(subject)));
  };
}

/** Pebble's java class names for the kinds of value a template holds. */
function className(input: unknown): string {
  if (typeof input === 'string') return 'java.lang.String';
  if (typeof input === 'boolean') return 'java.lang.Boolean';
  if (typeof input === 'number') return Number.isInteger(input) ? 'java.lang.Long' : 'java.lang.Double';
  if (input instanceof Date) return 'java.time.ZonedDateTime';
  if (Array.isArray(input)) return 'java.util.ArrayList';
  if (isDataMap(input)) return 'java.util.LinkedHashMap';
  return 'null';
}

/** Kestra's filters beyond Pebble's core (its Pebble extension), and Pebble's own text and list filters. */
const KESTRA_FILTERS: [string, Filter][] = [
  [
    'abbreviate',
    (input, a) => {
      const subject = text(input, 'abbreviate');
      const length = num(arg(a, 0, 'length'), 'abbreviate');
      if (subject.length <= length) return subject;
      if (length < 3) throw new BuiltinError("'abbreviate' length must be at least 3 (the ellipsis)");
      return `${subject.slice(0, length - 3)}...`;
    },
  ],
  [
    'chunk',
    (input, a, budget) => {
      const items = list(input, 'chunk');
      const size = num(arg(a, 0, 'size'), 'chunk');
      if (!Number.isInteger(size) || size < 1) throw new BuiltinError("'chunk' size must be a whole number of at least 1");
      budget.list(Math.ceil(items.length / size), "'chunk'");
      const chunks: unknown[][] = [];
      for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
      return chunks;
    },
  ],
  ['className', (input) => className(input)],
  ['dateAdd', (input, a, budget) => dateAdd(input, a, budget)],
  [
    'timestamp',
    (input, a) => {
      return String(epochNanos(input, 'timestamp', a) / 1_000_000_000n);
    },
  ],
  [
    'timestampMilli',
    (input, a) => {
      return String(epochNanos(input, 'timestampMilli', a) / 1_000_000n);
    },
  ],
  [
    'timestampMicro',
    (input, a) => {
      return String(epochNanos(input, 'timestampMicro', a) / 1_000n);
    },
  ],
  [
    'timestampNano',
    (input, a) => {
      return String(epochNanos(input, 'timestampNano', a));
    },
  ],
  [
    'jq',
    (input, a, budget) => {
      const expression = str(arg(a, 0, 'expression'), "'jq' expression");
      let data = input;
      if (typeof input === 'string') {
        budget.charge(input.length);
        try {
          data = JSON.parse(input) as unknown;
        } catch {
          throw new BuiltinError("'jq' expects JSON text, a list or a map");
        }
      }
      try {
        return runJq(expression, data ?? null, budget);
      } catch (error) {
        if (error instanceof Error && error.name === 'JqError') throw new BuiltinError(`'jq' ${error.message}`);
        throw error;
      }
    },
  ],
  [
    'escapeChar',
    (input, a, budget) => {
      const type = str(arg(a, 0, 'type'), "'escapeChar' type");
      if (!['SINGLE', 'DOUBLE', 'SHELL'].includes(type))
        throw new BuiltinError("'escapeChar' type must be SINGLE, DOUBLE or SHELL");
      return escapeChars(input, type, budget);
    },
  ],
  [
    'flatten',
    (input, _a, budget) => {
      const items = list(input, 'flatten');
      const length = items.reduce<number>((sum, item) => sum + (Array.isArray(item) ? item.length : 1), 0);
      budget.list(length, "'flatten'");
      return items.flatMap((item) => (Array.isArray(item) ? item : [item]));
    },
  ],
  ['indent', (input, a, budget) => indented(input, a, budget, 'indent', false)],
  ['nindent', (input, a, budget) => indented(input, a, budget, 'nindent', true)],
  [
    'yaml',
    (input, _a, budget) => {
      budget.json(input ?? null, "'yaml'");
      const yaml = toYaml(input ?? null);
      budget.text(yaml.length, "'yaml'");
      return yaml;
    },
  ],
  ['startsWith', (input, a) => text(input, 'startsWith').startsWith(str(arg(a, 0, 'value'), "'startsWith' value"))],
  ['endsWith', (input, a) => text(input, 'endsWith').endsWith(str(arg(a, 0, 'value'), "'endsWith' value"))],
  ['md5', hashed('md5', md5)],
  ['sha1', hashed('sha1', sha1)],
  ['sha256', hashed('sha256', sha256)],
  ['sha512', hashed('sha512', sha512)],
  ['slugify', textMapped('slugify', slugify)],
  [
    'substringBefore',
    (input, a) => {
      const subject = text(input, 'substringBefore');
      const at = subject.indexOf(str(arg(a, 0, 'separator'), "'substringBefore' separator"));
      return at === -1 ? subject : subject.slice(0, at);
    },
  ],
  [
    'substringBeforeLast',
    (input, a) => {
      const subject = text(input, 'substringBeforeLast');
      const at = subject.lastIndexOf(str(arg(a, 0, 'separator'), "'substringBeforeLast' separator"));
      return at === -1 ? subject : subject.slice(0, at);
    },
  ],
  [
    'substringAfter',
    (input, a) => {
      const subject = text(input, 'substringAfter');
      const separator = str(arg(a, 0, 'separator'), "'substringAfter' separator");
      const at = subject.indexOf(separator);
      return at === -1 ? '' : subject.slice(at + separator.length);
    },
  ],
  [
    'substringAfterLast',
    (input, a) => {
      const subject = text(input, 'substringAfterLast');
      const separator = str(arg(a, 0, 'separator'), "'substringAfterLast' separator");
      const at = subject.lastIndexOf(separator);
      return at === -1 || separator === '' ? '' : subject.slice(at + separator.length);
    },
  ],
  [
    'merge',
    (input, a, budget) => {
      const other = arg(a, 0, 'items');
      if (Array.isArray(input)) {
        const extra = Array.isArray(other) ? other : [other];
        budget.list(input.length + extra.length, "'merge'");
        return [...input, ...extra];
      }
      const left = map(input, 'merge');
      const right = map(other, "'merge' argument");
      const entries = [...Object.entries(left), ...Object.entries(right)];
      budget.list(entries.length, "'merge'");
      return newMap(entries);
    },
  ],
  [
    'slice',
    (input, a, budget) => {
      const from = num(arg(a, 0, 'fromIndex') ?? 0, 'slice');
      const subject: string | unknown[] = typeof input === 'string' ? input : list(input, 'slice');
      const to = num(arg(a, 1, 'toIndex') ?? subject.length, 'slice');
      if (from < 0 || to > subject.length || from > to)
        throw new BuiltinError(`'slice' indexes ${from}..${to} are outside 0..${subject.length}`);
      budget.charge(to - from);
      return subject.slice(from, to);
    },
  ],
  ['rsort', (input, _a, budget) => sorted(list(input, 'rsort'), budget).reverse()],
  [
    'numberformat',
    (input, a) => {
      const value = num(input, 'numberformat');
      const pattern = str(arg(a, 0, 'format'), "'numberformat' format");
      try {
        return formatNumber(value, pattern);
      } catch (error) {
        if (error instanceof NumberFormatError) throw new BuiltinError(`'numberformat' ${error.message}`);
        throw error;
      }
    },
  ],
  // Lanner prints no HTML escaping, so Pebble's `raw` and `escape` leave text as it is (Kestra turns autoescaping off too).
  ['raw', (input) => input],
];

export const FILTERS: ReadonlyMap<string, Filter> = new Map<string, Filter>([
  ['upper', textMapped('upper', (subject) => subject.toUpperCase())],
  ['lower', textMapped('lower', (subject) => subject.toLowerCase())],
  ['capitalize', textMapped('capitalize', (subject) => subject.replace(/^./, (c) => c.toUpperCase()))],
  [
    'title',
    textMapped('title', (subject) => subject.replace(/(^|\s)(\S)/g, (_m, space: string, c: string) => space + c.toUpperCase())),
  ],
  ['trim', textMapped('trim', (subject) => subject.trim())],
  // Pebble: the fallback when the input is null, empty text, an empty list or map
  // (the evaluator also lets an undefined input through to this filter).
  ['default', (input, a) => (isEmpty(input) ? (arg(a, 0, 'default') ?? null) : input)],
  ['json', (input, _a, budget) => budget.json(input ?? null, "'json'")],
  ['toJson', (input, _a, budget) => budget.json(input ?? null, "'toJson'")],
  [
    'fromJson',
    (input, _a, budget) => {
      const source = text(input, 'fromJson');
      budget.charge(source.length);
      let parsed: unknown;
      try {
        parsed = JSON.parse(source) as unknown;
      } catch {
        throw new BuiltinError("'fromJson' expects JSON text");
      }
      budget.listsWithin(parsed, "'fromJson'");
      return parsed;
    },
  ],
  [
    'date',
    (input, a, budget) => {
      const format = str(arg(a, 0, 'format') ?? 'iso8601', "'date' format");
      const timeZone = str(arg(a, 1, 'timeZone') ?? 'UTC', "'date' timeZone");
      const existingFormat = optionalText(a, 2, 'existingFormat', 'date');
      const locale = optionalText(a, 3, 'locale', 'date');
      chargeLocale(locale, budget);
      return dated('date', () => formatDate(dateInput(input, existingFormat, timeZone, locale), format, timeZone, locale));
    },
  ],
  [
    'length',
    (input, _a, budget) => {
      if (input === null || input === undefined) return 0;
      if (typeof input === 'string' || Array.isArray(input)) return input.length;
      if (isDataMap(input)) {
        const size = Object.keys(input).length;
        budget.charge(size);
        return size;
      }
      throw new BuiltinError(`'length' expects text, a list or a map, got ${typeName(input)}`);
    },
  ],
  ['first', (input) => (typeof input === 'string' ? (input[0] ?? null) : (list(input, 'first')[0] ?? null))],
  ['last', (input) => (typeof input === 'string' ? (input[input.length - 1] ?? null) : (list(input, 'last').at(-1) ?? null))],
  [
    'join',
    (input, a, budget) => {
      const items = list(input, 'join');
      const separator = str(arg(a, 0, 'separator') ?? '', "'join' separator");
      // Each item printed within the limit, and their sum checked before it is joined.
      let length = Math.max(0, items.length - 1) * separator.length;
      budget.text(length, "'join'");
      const texts = items.map((item) => {
        const printed = budget.print(item, "'join'");
        length += printed.length;
        budget.text(length, "'join'");
        return printed;
      });
      return texts.join(separator);
    },
  ],
  [
    'replace',
    (input, a, budget) => {
      const first = arg(a, 0, 'search');
      const regexp = a.named.get('regexp');
      if (regexp !== undefined && regexp !== null && typeof regexp !== 'boolean')
        throw new BuiltinError(`'replace' regexp must be true or false, got ${typeName(regexp)}`);
      // Pebble passes a map of replacements; Kestra also accepts (search, replacement).
      const pairs: [string, string][] = isDataMap(first)
        ? Object.entries(first).map(([k, v]) => [k, budget.print(v, "'replace'")])
        : [[str(first, "'replace' search"), budget.print(arg(a, 1, 'replacement') ?? '', "'replace'")]];
      let replaceText: (subject: string) => string;
      if (regexp === true) {
        // Each pair in turn, as Java's replaceAll: a linear-time engine, its work counted.
        let compiled: [CompiledRegex, string][];
        try {
          compiled = pairs.map(([pattern, replacement]) => [compileRegex(pattern), replacement]);
        } catch (error) {
          if (error instanceof RegexError) throw new BuiltinError(`'replace' ${error.message}`);
          throw error;
        }
        replaceText = (subject) =>
          compiled.reduce((acc, [regex, replacement]) => {
            try {
              return replaceAll(acc, regex, replacement, budget, (length) => budget.text(length, "'replace'"));
            } catch (error) {
              if (error instanceof RegexError) throw new BuiltinError(`'replace' ${error.message}`);
              throw error;
            }
          }, subject);
      } else {
        replaceText = (subject) =>
          pairs.reduce((acc, [search, replacement]) => {
            if (search === '') return acc;
            const found = occurrences(acc, search, budget);
            budget.text(acc.length + found * (replacement.length - search.length), "'replace'");
            return found === 0 ? acc : acc.split(search).join(replacement);
          }, subject);
      }
      // Kestra replaces in every text of a list or a map too (its keys stay), other leaves read as text.
      const each = (value: unknown): unknown => {
        budget.charge(1);
        if (Array.isArray(value)) return value.map(each);
        if (isDataMap(value)) return newMap(Object.entries(value).map(([key, item]) => [key, each(item)]));
        if (value === null || value === undefined) return value ?? null;
        return replaceText(text(value, 'replace'));
      };
      if (Array.isArray(input) || isDataMap(input)) return each(input);
      return replaceText(text(input, 'replace'));
    },
  ],
  [
    'split',
    (input, a, budget) => {
      const subject = text(input, 'split');
      const delimiter = str(arg(a, 0, 'delimiter'), "'split' delimiter");
      const limit = arg(a, 1, 'limit');
      const parts = delimiter === '' ? subject.length : occurrences(subject, delimiter, budget) + 1;
      budget.list(typeof limit === 'number' && limit > 0 ? Math.min(limit, parts) : parts, "'split'");
      const split = subject.split(delimiter);
      // Java's limit: at most `limit` parts, the last one keeps the rest.
      if (typeof limit === 'number' && limit > 0 && split.length > limit) {
        return [...split.slice(0, limit - 1), split.slice(limit - 1).join(delimiter)];
      }
      return split;
    },
  ],
  ['abs', (input) => Math.abs(num(input, 'abs'))],
  [
    'number',
    (input, a) => {
      const type = arg(a, 0, 'type');
      const value =
        typeof input === 'number' ? input : typeof input === 'string' && input.trim() !== '' ? Number(input.trim()) : NaN;
      if (Number.isNaN(value)) throw new BuiltinError("'number' expects a numeric string");
      if ((type === 'INT' || type === 'LONG') && !Number.isInteger(value))
        throw new BuiltinError(`'number' expects an integer for ${type}`);
      return value;
    },
  ],
  [
    'keys',
    (input, _a, budget) => {
      const keys = Object.keys(map(input, 'keys'));
      budget.charge(keys.length);
      return keys;
    },
  ],
  [
    'values',
    (input, _a, budget) => {
      const values = Object.values(map(input, 'values'));
      budget.charge(values.length);
      return values;
    },
  ],
  ['sort', (input, _a, budget) => sorted(list(input, 'sort'), budget)],
  [
    'reverse',
    (input, _a, budget) => {
      if (typeof input === 'string') return reverseText(input, budget);
      const items = list(input, 'reverse');
      budget.charge(items.length);
      return [...items].reverse();
    },
  ],
  ['unique', (input, _a, budget) => uniqueItems(list(input, 'unique'), budget, 'unique')],
  // Kestra's name for the same filter.
  ['distinct', (input, _a, budget) => uniqueItems(list(input, 'distinct'), budget, 'distinct')],
  [
    'base64encode',
    (input, _a, budget) => {
      const subject = text(input, 'base64encode');
      budget.charge(subject.length);
      budget.text(Math.ceil(Buffer.byteLength(subject, 'utf8') / 3) * 4, "'base64encode'");
      return Buffer.from(subject, 'utf8').toString('base64');
    },
  ],
  [
    'base64decode',
    (input, _a, budget) => {
      const subject = text(input, 'base64decode');
      budget.charge(subject.length);
      return Buffer.from(subject, 'base64').toString('utf8');
    },
  ],
  // Java's URLEncoder, as Pebble's urlencode: a space is '+', and only letters, digits and . - * _ stay as they are.
  [
    'urlencode',
    textMapped('urlencode', (subject) =>
      encodeURIComponent(subject)
        .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
        .replace(/%20/g, '+'),
    ),
  ],
  [
    'urldecode',
    textMapped('urldecode', (subject) => {
      try {
        return decodeURIComponent(subject);
      } catch {
        throw new BuiltinError("'urldecode' expects URL-encoded text");
      }
    }),
  ],
  ['string', (input, _a, budget) => budget.print(input, "'string'")],
  // Kestra's own filters give null for a null input.
  ...KESTRA_FILTERS.map(([name, filter]): [string, Filter] =>
    name === 'className' ? [name, filter] : [name, (input, a, budget) => (input === null ? null : filter(input, a, budget))],
  ),
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
  // Kestra's `is json`: text that parses as JSON.
  [
    'json',
    (input) => {
      if (typeof input !== 'string') return false;
      try {
        JSON.parse(input);
        return true;
      } catch {
        return false;
      }
    },
  ],
]);

export function range(a: Arguments, budget: Budget): number[] {
  const start = num(arg(a, 0, 'start'), 'range');
  const end = num(arg(a, 1, 'end'), 'range');
  const step = num(arg(a, 2, 'step') ?? 1, 'range');
  if (step === 0) throw new BuiltinError("'range' step must not be 0");
  const size = Math.max(0, Math.floor((end - start) / step) + 1);
  const max = budget.limits.maxRangeLength;
  // Its own limit, well under the list limit: a template is not a place for bulk data.
  if (!(size <= max))
    throw new BuiltinError(
      `'range' would build ${Number.isSafeInteger(size) ? formatCount(size) : 'more than ' + formatCount(max)} numbers, which exceeds the limit of ${formatCount(max)} numbers`,
    );
  budget.list(size, "'range'");
  // Pebble's range includes its end.
  return Array.from({ length: size }, (_v, i) => start + i * step);
}

export function extremum(a: Arguments, pick: (x: number, y: number) => number, name: string, budget: Budget): number {
  const values = a.args.length === 1 && Array.isArray(a.args[0]) ? a.args[0] : a.args;
  if (values.length === 0) throw new BuiltinError(`'${name}' needs at least one number`);
  budget.charge(values.length);
  return values.map((v) => num(v, name)).reduce((a, b) => pick(a, b));
}

export function newDataMap(entries: [string, unknown][]): DataMap {
  return newMap(entries);
}
