// Reading typed values out of a parsed YAML document while collecting every
// problem with its YAML path and source position. The readers never throw: a bad
// value is reported and a neutral placeholder returned, because the flow is only
// handed out when no problem was found.

import { Alias, Document, isAlias, isMap, isNode, isPair, isScalar, isSeq, LineCounter, Node, visit } from 'yaml';
import type { FlowProblem, Template, TemplatedValue } from './flow.types';
import { parseIsoDuration } from './iso-duration';
import { childPath, itemPath } from './yaml-path';

/** Deeper nesting than this is refused rather than risking the call stack. */
export const MAX_VALUE_DEPTH = 100;
/** How many alias (`*anchor`) expansions one document may make (defuses "billion laughs"). */
const MAX_ALIAS_EXPANSIONS = 10_000;

/** A value node together with where it sits in the flow. */
export interface Located {
  readonly node: Node;
  readonly path: string;
}

export class FlowSource {
  readonly problems: FlowProblem[] = [];
  /** What is accepted but deprecated (an old property name): said, never refused. */
  readonly warnings: FlowProblem[] = [];
  private aliasExpansions = 0;
  private aliasLimitReported = false;
  /** Each alias's anchored node, found in one walk of the document when the first alias is met. */
  private anchorTargets: Map<Alias, Node> | undefined;

  constructor(
    private readonly doc: Document,
    private readonly lineCounter: LineCounter,
  ) {}

  /** Records a problem; `at` is the node (or source offset) it points to. */
  report(path: string, message: string, at?: Node | number | null): void {
    const offset = typeof at === 'number' ? at : at?.range?.[0];
    if (offset === undefined) {
      this.problems.push({ path, message });
      return;
    }
    const { line, col } = this.lineCounter.linePos(offset);
    this.problems.push({ path, message, line, column: col });
  }

  /** Records a warning (the flow is still valid). */
  warn(path: string, message: string, at?: Node | null): void {
    const offset = at?.range?.[0];
    if (offset === undefined) {
      this.warnings.push({ path, message });
      return;
    }
    const { line, col } = this.lineCounter.linePos(offset);
    this.warnings.push({ path, message, line, column: col });
  }

  /** Follows aliases; `undefined` for an absent value or an explicit YAML null. */
  resolve(node: unknown, path: string): Node | undefined {
    let current = node;
    for (let hops = 0; isAlias(current); hops++) {
      this.aliasExpansions++;
      if (hops > 64 || this.aliasExpansions > MAX_ALIAS_EXPANSIONS) {
        // Said once: every later alias would repeat it.
        if (!this.aliasLimitReported) this.report(path, 'too many alias expansions', current);
        this.aliasLimitReported = true;
        return undefined;
      }
      const target: unknown = this.targetOf(current);
      if (target === undefined) {
        this.report(path, `unknown alias '*${current.source}'`, current);
        return undefined;
      }
      current = target;
    }
    if (current === null || current === undefined) return undefined;
    if (isScalar(current) && current.value === null) return undefined;
    if (isMap(current) || isSeq(current) || isScalar(current)) return current;
    return undefined;
  }

  /**
   * The node an alias points to: the last node before it with that anchor, as YAML
   * says. The library's own Alias.resolve walks the whole document on every call,
   * which made a document of many aliases quadratic.
   */
  private targetOf(alias: Alias): Node | undefined {
    if (this.anchorTargets === undefined) {
      const targets = new Map<Alias, Node>();
      const latest = new Map<string, Node>();
      visit(this.doc, {
        Node: (_key, node) => {
          if (isAlias(node)) {
            const target = latest.get(node.source);
            if (target !== undefined) targets.set(node, target);
          } else if (isNode(node) && node.anchor) {
            latest.set(node.anchor, node);
          }
        },
      });
      this.anchorTargets = targets;
    }
    return this.anchorTargets.get(alias);
  }

  /** The items of a sequence, or a problem when the value is not one. */
  list(node: Node, path: string, what = 'a list'): Located[] | undefined {
    if (!isSeq(node)) {
      this.report(path, `must be ${what}`, node);
      return undefined;
    }
    const items: Located[] = [];
    node.items.forEach((item, index) => {
      const at = itemPath(path, index);
      const resolved = this.resolve(item, at);
      if (resolved === undefined) {
        this.report(at, 'must not be empty', isPairOrNode(item) ? (item as Node) : node);
        return;
      }
      items.push({ node: resolved, path: at });
    });
    return items;
  }

  /** A mapping, as a view whose keys can be read one by one. */
  object(node: Node, path: string, what = 'a mapping'): ObjectView | undefined {
    if (!isMap(node)) {
      this.report(path, `must be ${what}`, node);
      return undefined;
    }
    const entries = new Map<string, Entry>();
    for (const pair of node.items) {
      const keyNode = this.resolve(pair.key, path);
      if (keyNode === undefined || !isScalar(keyNode)) {
        this.report(path, 'keys must be plain strings', isPairOrNode(pair.key) ? (pair.key as Node) : node);
        continue;
      }
      const key = String(keyNode.value);
      entries.set(key, { keyNode, valueNode: pair.value as unknown });
    }
    return new ObjectView(this, node, path, entries);
  }

  /** Any JSON-like value (strings kept verbatim as templates). */
  value(node: Node, path: string, depth = 0): TemplatedValue | undefined {
    if (depth > MAX_VALUE_DEPTH) {
      this.report(path, `is nested deeper than ${MAX_VALUE_DEPTH} levels`, node);
      return undefined;
    }
    if (isScalar(node)) return this.scalarValue(node, path);
    if (isSeq(node)) {
      const result: TemplatedValue[] = [];
      node.items.forEach((item, index) => {
        const at = itemPath(path, index);
        const resolved = this.resolve(item, at);
        if (resolved === undefined) {
          result.push(null);
          return;
        }
        const value = this.value(resolved, at, depth + 1);
        if (value !== undefined) result.push(value);
      });
      return result;
    }
    if (isMap(node)) {
      const view = this.object(node, path);
      if (!view) return undefined;
      const entries: [string, TemplatedValue][] = [];
      for (const key of view.keys()) {
        const child = view.node(key);
        if (child === undefined) {
          entries.push([key, null]);
          continue;
        }
        const value = this.value(child, view.at(key), depth + 1);
        if (value !== undefined) entries.push([key, value]);
      }
      // fromEntries defines own properties, so a `__proto__` key stays a plain key.
      return Object.fromEntries(entries);
    }
    this.report(path, 'must be a plain value', node);
    return undefined;
  }

  private scalarValue(node: Node, path: string): TemplatedValue | undefined {
    const value: unknown = isScalar(node) ? node.value : undefined;
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
    if (typeof value === 'number') {
      if (Number.isFinite(value)) return value;
      this.report(path, 'must be a finite number', node);
      return undefined;
    }
    if (typeof value === 'bigint') {
      this.report(path, 'is a number too large to represent', node);
      return undefined;
    }
    this.report(path, 'must be a plain value', node);
    return undefined;
  }
}

interface Entry {
  readonly keyNode: Node;
  readonly valueNode: unknown;
}

function isPairOrNode(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !isPair(value) && 'range' in value;
}

export interface IntegerRule {
  readonly min?: number;
  readonly max?: number;
}

/** One YAML mapping, read key by key. */
export class ObjectView {
  constructor(
    readonly source: FlowSource,
    readonly mapNode: Node,
    readonly path: string,
    private readonly entries: ReadonlyMap<string, Entry>,
  ) {}

  keys(): string[] {
    return [...this.entries.keys()];
  }

  at(key: string): string {
    return childPath(this.path, key);
  }

  /** True when the key is written with a non-null value. */
  has(key: string): boolean {
    return this.node(key) !== undefined;
  }

  /** The (alias-resolved) value node, `undefined` when absent or null. */
  node(key: string): Node | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    return this.source.resolve(entry.valueNode, this.at(key));
  }

  /** Where a problem about a key goes: its value, else its key, else the mapping. */
  position(key: string): Node {
    const entry = this.entries.get(key);
    if (!entry) return this.mapNode;
    const value = entry.valueNode;
    if (typeof value === 'object' && value !== null && 'range' in value && (value as Node).range) return value as Node;
    return entry.keyNode;
  }

  report(key: string, message: string): void {
    this.source.report(this.at(key), message, this.position(key));
  }

  warn(key: string, message: string): void {
    this.source.warn(this.at(key), message, this.position(key));
  }

  required(key: string): void {
    this.source.report(this.at(key), 'required', this.mapNode);
  }

  /** Reports every key not in `allowed`, naming it (and a near miss if there is one). */
  rejectUnknown(allowed: readonly string[], owner: string): void {
    for (const [key, entry] of this.entries) {
      if (allowed.includes(key)) continue;
      const suggestion = closest(key, allowed);
      const hint = suggestion ? `; did you mean '${suggestion}'?` : '';
      this.source.report(this.at(key), `unknown property '${key}' for ${owner}${hint}`, entry.keyNode);
    }
  }

  /** A plain string (numbers and booleans are not silently turned into text). */
  string(key: string, required: true): string;
  string(key: string, required?: false): string | undefined;
  string(key: string, required = false): string | undefined {
    const node = this.node(key);
    if (node === undefined) {
      if (required) this.required(key);
      return required ? '' : undefined;
    }
    if (isScalar(node) && typeof node.value === 'string') return node.value;
    this.report(key, 'must be a string');
    return required ? '' : undefined;
  }

  /** A template: a string, or a number/boolean read as its text (`condition: true`). */
  template(key: string, required: true): Template;
  template(key: string, required?: false): Template | undefined;
  template(key: string, required = false): Template | undefined {
    const node = this.node(key);
    if (node === undefined) {
      if (required) this.required(key);
      return required ? '' : undefined;
    }
    const text = scalarText(node);
    if (text !== undefined) return text;
    this.report(key, 'must be a string');
    return required ? '' : undefined;
  }

  boolean(key: string, fallback: boolean): boolean {
    const node = this.node(key);
    if (node === undefined) return fallback;
    if (isScalar(node) && typeof node.value === 'boolean') return node.value;
    this.report(key, 'must be true or false');
    return fallback;
  }

  integer(key: string, rule: IntegerRule & { readonly fallback: number }): number;
  integer(key: string, rule?: IntegerRule): number | undefined;
  integer(key: string, rule: IntegerRule & { readonly fallback?: number } = {}): number | undefined {
    const node = this.node(key);
    if (node === undefined) return rule.fallback;
    const value: unknown = isScalar(node) ? node.value : undefined;
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      this.report(key, 'must be an integer');
      return rule.fallback;
    }
    if (rule.min !== undefined && value < rule.min) this.report(key, `must be >= ${rule.min}`);
    if (rule.max !== undefined && value > rule.max) this.report(key, `must be <= ${rule.max}`);
    return value;
  }

  number(key: string, rule: IntegerRule = {}): number | undefined {
    const node = this.node(key);
    if (node === undefined) return undefined;
    const value: unknown = isScalar(node) ? node.value : undefined;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.report(key, 'must be a number');
      return undefined;
    }
    if (rule.min !== undefined && value < rule.min) this.report(key, `must be >= ${rule.min}`);
    if (rule.max !== undefined && value > rule.max) this.report(key, `must be <= ${rule.max}`);
    return value;
  }

  /** An ISO-8601 duration, in milliseconds. */
  duration(key: string, options: { readonly required: true; readonly positive?: boolean }): number;
  duration(key: string, options?: { readonly required?: false; readonly positive?: boolean }): number | undefined;
  duration(key: string, options: { readonly required?: boolean; readonly positive?: boolean } = {}): number | undefined {
    const fallback = options.required ? 0 : undefined;
    const node = this.node(key);
    if (node === undefined) {
      if (options.required) this.required(key);
      return fallback;
    }
    const text = isScalar(node) && typeof node.value === 'string' ? node.value : undefined;
    const ms = text === undefined ? undefined : parseIsoDuration(text);
    if (ms === undefined) {
      this.report(key, 'must be an ISO-8601 duration such as PT30S, PT10M or P1D');
      return fallback;
    }
    if (options.positive && ms <= 0) this.report(key, 'must be longer than zero');
    return ms;
  }

  enumOf<T extends string>(key: string, allowed: readonly T[], fallback: T): T;
  enumOf<T extends string>(key: string, allowed: readonly T[]): T | undefined;
  enumOf<T extends string>(key: string, allowed: readonly T[], fallback?: T): T | undefined {
    const node = this.node(key);
    if (node === undefined) return fallback;
    const value: unknown = isScalar(node) ? node.value : undefined;
    const match = allowed.find((candidate) => candidate === value);
    if (match !== undefined) return match;
    this.report(key, `must be one of ${allowed.join(', ')}`);
    return fallback;
  }

  /** Any JSON-like value, strings kept as templates. */
  value(key: string): TemplatedValue | undefined {
    const node = this.node(key);
    return node === undefined ? undefined : this.source.value(node, this.at(key));
  }

  /** A mapping of any values (`variables`, `inputs` of a Subflow...). */
  valueRecord(key: string): Record<string, TemplatedValue> | undefined {
    const node = this.node(key);
    if (node === undefined) return undefined;
    if (!isMap(node)) {
      this.report(key, 'must be a mapping');
      return undefined;
    }
    const value = this.source.value(node, this.at(key));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  }

  /** A mapping of strings (`env`, `headers`); numbers and booleans are read as text. */
  stringRecord(key: string): Record<string, string> | undefined {
    const node = this.node(key);
    if (node === undefined) return undefined;
    const view = this.source.object(node, this.at(key));
    if (!view) return undefined;
    const entries: [string, string][] = [];
    for (const entryKey of view.keys()) {
      const text = view.template(entryKey);
      if (text === undefined && !view.has(entryKey)) view.report(entryKey, 'must be a string');
      if (text !== undefined) entries.push([entryKey, text]);
    }
    return Object.fromEntries(entries);
  }

  /**
   * Labels as Kestra writes them: a mapping `{ team: data }` or a list of
   * `{ key, value }` pairs.
   */
  labels(key: string): Record<string, string> | undefined {
    const node = this.node(key);
    if (node === undefined) return undefined;
    if (isMap(node)) return this.stringRecord(key);
    const items = this.source.list(node, this.at(key), 'a mapping or a list of { key, value }');
    if (!items) return undefined;
    const entries: [string, string][] = [];
    for (const item of items) {
      const pair = this.source.object(item.node, item.path);
      if (!pair) continue;
      pair.rejectUnknown(['key', 'value'], 'a label');
      const labelKey = pair.string('key', true);
      const labelValue = pair.template('value', true);
      entries.push([labelKey, labelValue]);
    }
    return Object.fromEntries(entries);
  }

  /** A list of strings (templates; numbers and booleans read as text). */
  stringList(key: string, options: { readonly required?: boolean; readonly nonEmpty?: boolean } = {}): string[] | undefined {
    const node = this.node(key);
    if (node === undefined) {
      if (options.required) this.required(key);
      return undefined;
    }
    const items = this.source.list(node, this.at(key), 'a list of strings');
    if (!items) return undefined;
    if (options.nonEmpty && items.length === 0 && isSeq(node) && node.items.length === 0) {
      this.report(key, 'must not be empty');
    }
    const result: string[] = [];
    for (const item of items) {
      const text = scalarText(item.node);
      if (text === undefined) this.source.report(item.path, 'must be a string', item.node);
      else result.push(text);
    }
    return result;
  }
}

/** The text of a scalar string, number or boolean; `undefined` for anything else. */
export function scalarText(node: Node): string | undefined {
  if (!isScalar(node)) return undefined;
  const value: unknown = node.value;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') {
    // Keep what the author wrote (`1.0` stays `1.0`), not JavaScript's rendering.
    return typeof node.source === 'string' ? node.source : String(value);
  }
  return undefined;
}

/** The allowed name closest to a misspelt one, when it is close enough to suggest. */
function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(word.length / 4)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3 || a.length > 64 || b.length > 64) return Infinity;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost));
    }
    previous = current;
  }
  return previous[b.length];
}
