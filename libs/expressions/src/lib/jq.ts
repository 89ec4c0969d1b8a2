/**
 * The subset of jq that Kestra's `jq` filter is used with in flows: paths (`.a.b`,
 * `.["k"]`, `.[0]`, `.[1:3]`, `.[]`, `?`), `|`, `,`, literals, `[...]` and `{...}`
 * construction, arithmetic, comparisons, `and`/`or`/`not`, `//`, `if ... then ... elif
 * ... else ... end`, and the builtins listed in BUILTINS. A jq program yields a stream:
 * the filter returns the list of its results, as Kestra's does. No regexes, no
 * definitions, no variables (`as $x`), no `reduce`/`foreach`, no paths functions: each is
 * refused with a JqError naming it. Every step is charged to the rendering's budget.
 */
import type { WorkMeter } from './budget';
import { dataEquals, isDataMap } from './values';

export class JqError extends Error {
  override readonly name = 'JqError';
}

type Node =
  | { readonly kind: 'identity' }
  | { readonly kind: 'literal'; readonly value: unknown }
  | { readonly kind: 'field'; readonly target: Node; readonly key: Node; readonly optional: boolean }
  | { readonly kind: 'slice'; readonly target: Node; readonly from: Node | null; readonly to: Node | null }
  | { readonly kind: 'iterate'; readonly target: Node; readonly optional: boolean }
  | { readonly kind: 'pipe' | 'comma' | 'alternative' | 'and' | 'or'; readonly left: Node; readonly right: Node }
  | { readonly kind: 'binary'; readonly operator: string; readonly left: Node; readonly right: Node }
  | { readonly kind: 'negate'; readonly operand: Node }
  | { readonly kind: 'array'; readonly body: Node | null }
  | { readonly kind: 'object'; readonly entries: readonly { key: Node; value: Node }[] }
  | { readonly kind: 'call'; readonly name: string; readonly args: readonly Node[] }
  | { readonly kind: 'if'; readonly branches: readonly { test: Node; then: Node }[]; readonly otherwise: Node | null }
  | { readonly kind: 'try'; readonly body: Node };

interface Token {
  readonly type: 'punct' | 'ident' | 'field' | 'number' | 'string' | 'end';
  readonly value: string;
  readonly at: number;
}

const PUNCTUATION = [
  '//',
  '==',
  '!=',
  '<=',
  '>=',
  '|',
  ',',
  '.',
  '[',
  ']',
  '(',
  ')',
  '{',
  '}',
  ':',
  '+',
  '-',
  '*',
  '/',
  '%',
  '<',
  '>',
  '?',
  ';',
];

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '#') {
      while (i < source.length && source[i] !== '\n') i++;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let escaped = false;
      while (j < source.length && (escaped || source[j] !== '"')) {
        if (source[j] === '\\' && source[j + 1] === '(')
          throw new JqError(`string interpolation \\( ) is not supported (at ${j + 1})`);
        escaped = !escaped && source[j] === '\\';
        j++;
      }
      if (j >= source.length) throw new JqError(`unterminated string at ${i + 1}`);
      tokens.push({ type: 'string', value: JSON.parse(source.slice(i, j + 1)) as string, at: i });
      i = j + 1;
      continue;
    }
    if (c === '.' && /[A-Za-z_]/.test(source[i + 1] ?? '')) {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i + 1)) as RegExpExecArray;
      tokens.push({ type: 'field', value: match[0], at: i });
      i += 1 + match[0].length;
      continue;
    }
    const number = /^\d+(\.\d+)?([eE][+-]?\d+)?/.exec(source.slice(i));
    if (number) {
      tokens.push({ type: 'number', value: number[0], at: i });
      i += number[0].length;
      continue;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i));
    if (ident) {
      tokens.push({ type: 'ident', value: ident[0], at: i });
      i += ident[0].length;
      continue;
    }
    if (c === '$') throw new JqError(`variables ($name) are not supported (at ${i + 1})`);
    const punct = PUNCTUATION.find((p) => source.startsWith(p, i));
    if (!punct) throw new JqError(`unexpected '${c}' at ${i + 1}`);
    tokens.push({ type: 'punct', value: punct, at: i });
    i += punct.length;
  }
  tokens.push({ type: 'end', value: '', at: source.length });
  return tokens;
}

const UNSUPPORTED_KEYWORDS = new Set(['as', 'def', 'reduce', 'foreach', 'label', 'import', 'include', 'try', 'catch']);

class Parser {
  private index = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.index];
  }

  private next(): Token {
    return this.tokens[this.index++];
  }

  private is(value: string, type: Token['type'] = 'punct'): boolean {
    const token = this.peek();
    return token.type === type && token.value === value;
  }

  private accept(value: string, type: Token['type'] = 'punct'): boolean {
    if (!this.is(value, type)) return false;
    this.index++;
    return true;
  }

  private expect(value: string, type: Token['type'] = 'punct'): void {
    if (!this.accept(value, type)) {
      const token = this.peek();
      throw new JqError(`expected '${value}' at ${token.at + 1}, found ${token.type === 'end' ? 'the end' : `'${token.value}'`}`);
    }
  }

  program(): Node {
    const node = this.pipe();
    const token = this.peek();
    if (token.type !== 'end') throw new JqError(`unexpected '${token.value}' at ${token.at + 1}`);
    return node;
  }

  private pipe(): Node {
    let left = this.comma();
    while (this.accept('|')) left = { kind: 'pipe', left, right: this.comma() };
    return left;
  }

  private comma(): Node {
    let left = this.alternative();
    while (this.accept(',')) left = { kind: 'comma', left, right: this.alternative() };
    return left;
  }

  private alternative(): Node {
    const left = this.or();
    // Right-associative, as in jq.
    return this.accept('//') ? { kind: 'alternative', left, right: this.alternative() } : left;
  }

  private or(): Node {
    let left = this.and();
    while (this.accept('or', 'ident')) left = { kind: 'or', left, right: this.and() };
    return left;
  }

  private and(): Node {
    let left = this.comparison();
    while (this.accept('and', 'ident')) left = { kind: 'and', left, right: this.comparison() };
    return left;
  }

  private comparison(): Node {
    const left = this.additive();
    for (const operator of ['==', '!=', '<=', '>=', '<', '>']) {
      if (this.accept(operator)) return { kind: 'binary', operator, left, right: this.additive() };
    }
    return left;
  }

  private additive(): Node {
    let left = this.multiplicative();
    for (;;) {
      if (this.accept('+')) left = { kind: 'binary', operator: '+', left, right: this.multiplicative() };
      else if (this.accept('-')) left = { kind: 'binary', operator: '-', left, right: this.multiplicative() };
      else return left;
    }
  }

  private multiplicative(): Node {
    let left = this.unary();
    for (;;) {
      const operator = ['*', '/', '%'].find((op) => this.is(op));
      if (operator === undefined) return left;
      this.next();
      left = { kind: 'binary', operator, left, right: this.unary() };
    }
  }

  private unary(): Node {
    if (this.accept('-')) return { kind: 'negate', operand: this.postfix() };
    return this.postfix();
  }

  private postfix(): Node {
    let node = this.primary();
    for (;;) {
      const token = this.peek();
      if (token.type === 'field') {
        this.next();
        node = { kind: 'field', target: node, key: { kind: 'literal', value: token.value }, optional: this.accept('?') };
      } else if (this.is('.') && this.tokens[this.index + 1]?.type === 'string') {
        this.next();
        const key = this.next().value;
        node = { kind: 'field', target: node, key: { kind: 'literal', value: key }, optional: this.accept('?') };
      } else if (this.is('[') || (this.is('.') && this.tokens[this.index + 1]?.value === '[')) {
        this.accept('.');
        node = this.bracket(node);
      } else if (this.accept('?')) {
        node = { kind: 'try', body: node };
      } else {
        return node;
      }
    }
  }

  private bracket(target: Node): Node {
    this.expect('[');
    if (this.accept(']')) return { kind: 'iterate', target, optional: this.accept('?') };
    if (this.accept(':')) {
      const to = this.pipe();
      this.expect(']');
      return { kind: 'slice', target, from: null, to };
    }
    const key = this.pipe();
    if (this.accept(':')) {
      const to = this.is(']') ? null : this.pipe();
      this.expect(']');
      return { kind: 'slice', target, from: key, to };
    }
    this.expect(']');
    return { kind: 'field', target, key, optional: this.accept('?') };
  }

  private primary(): Node {
    const token = this.next();
    switch (token.type) {
      case 'number':
        return { kind: 'literal', value: Number(token.value) };
      case 'string':
        return { kind: 'literal', value: token.value };
      case 'field':
        return {
          kind: 'field',
          target: { kind: 'identity' },
          key: { kind: 'literal', value: token.value },
          optional: this.accept('?'),
        };
      case 'end':
        throw new JqError('the expression ends too early');
      case 'ident':
        return this.word(token);
    }
    switch (token.value) {
      case '.':
        if (this.peek().type === 'string') {
          const key = this.next().value;
          return {
            kind: 'field',
            target: { kind: 'identity' },
            key: { kind: 'literal', value: key },
            optional: this.accept('?'),
          };
        }
        if (this.is('[')) return this.bracket({ kind: 'identity' });
        if (this.is('.')) throw new JqError(`recursive descent '..' is not supported (at ${token.at + 1})`);
        return { kind: 'identity' };
      case '(': {
        const inner = this.pipe();
        this.expect(')');
        return inner;
      }
      case '[': {
        if (this.accept(']')) return { kind: 'array', body: null };
        const body = this.pipe();
        this.expect(']');
        return { kind: 'array', body };
      }
      case '{':
        return this.object();
    }
    throw new JqError(`unexpected '${token.value}' at ${token.at + 1}`);
  }

  private word(token: Token): Node {
    switch (token.value) {
      case 'true':
        return { kind: 'literal', value: true };
      case 'false':
        return { kind: 'literal', value: false };
      case 'null':
        return { kind: 'literal', value: null };
      case 'if':
        return this.conditional();
    }
    if (UNSUPPORTED_KEYWORDS.has(token.value)) throw new JqError(`'${token.value}' is not supported (at ${token.at + 1})`);
    const args: Node[] = [];
    if (this.accept('(')) {
      do args.push(this.pipe());
      while (this.accept(';'));
      this.expect(')');
    }
    return { kind: 'call', name: token.value, args };
  }

  private conditional(): Node {
    const branches: { test: Node; then: Node }[] = [];
    do {
      const test = this.pipe();
      this.expect('then', 'ident');
      branches.push({ test, then: this.pipe() });
    } while (this.accept('elif', 'ident'));
    const otherwise = this.accept('else', 'ident') ? this.pipe() : null;
    this.expect('end', 'ident');
    return { kind: 'if', branches, otherwise };
  }

  private object(): Node {
    const entries: { key: Node; value: Node }[] = [];
    if (this.accept('}')) return { kind: 'object', entries };
    do {
      const token = this.next();
      let key: Node;
      if (token.type === 'ident' || token.type === 'string') key = { kind: 'literal', value: token.value };
      else if (token.type === 'punct' && token.value === '(') {
        key = this.pipe();
        this.expect(')');
      } else throw new JqError(`expected an object key at ${token.at + 1}`);
      // `{a}` is `{a: .a}`.
      const value: Node = this.accept(':')
        ? this.alternative()
        : { kind: 'field', target: { kind: 'identity' }, key, optional: false };
      entries.push({ key, value });
    } while (this.accept(','));
    this.expect('}');
    return { kind: 'object', entries };
  }
}

function typeOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (isDataMap(value)) return 'object';
  return typeof value;
}

function truthy(value: unknown): boolean {
  return value !== null && value !== undefined && value !== false;
}

/** jq's order: null < false < true < numbers < strings < arrays < objects. */
function compareValues(a: unknown, b: unknown): number {
  const rank = (v: unknown): number =>
    v === null || v === undefined
      ? 0
      : v === false
        ? 1
        : v === true
          ? 2
          : typeof v === 'number'
            ? 3
            : typeof v === 'string'
              ? 4
              : Array.isArray(v)
                ? 5
                : 6;
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compareValues(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  if (isDataMap(a) && isDataMap(b)) {
    const c = compareValues(Object.keys(a).sort(), Object.keys(b).sort());
    if (c !== 0) return c;
    for (const key of Object.keys(a).sort()) {
      const d = compareValues(a[key], b[key]);
      if (d !== 0) return d;
    }
  }
  return 0;
}

function add(a: unknown, b: unknown): unknown {
  if (a === null || a === undefined) return b;
  if (b === null || b === undefined) return a;
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  if (isDataMap(a) && isDataMap(b)) return Object.fromEntries([...Object.entries(a), ...Object.entries(b)]);
  throw new JqError(`cannot add ${typeOf(a)} and ${typeOf(b)}`);
}

function arithmetic(operator: string, a: unknown, b: unknown): unknown {
  if (operator === '+') return add(a, b);
  if (operator === '-' && Array.isArray(a) && Array.isArray(b))
    return a.filter((item) => !b.some((other) => dataEquals(item, other)));
  if (typeof a !== 'number' || typeof b !== 'number')
    throw new JqError(`'${operator}' needs numbers, got ${typeOf(a)} and ${typeOf(b)}`);
  if ((operator === '/' || operator === '%') && b === 0) throw new JqError('division by zero');
  if (operator === '-') return a - b;
  if (operator === '*') return a * b;
  if (operator === '/') return a / b;
  return Math.trunc(a) % Math.trunc(b);
}

function iterate(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (isDataMap(value)) return Object.values(value);
  throw new JqError(`cannot iterate over ${typeOf(value)}`);
}

function index(target: unknown, key: unknown): unknown {
  if (target === null || target === undefined) return null;
  if (typeof key === 'string') {
    if (!isDataMap(target)) throw new JqError(`cannot index ${typeOf(target)} with "${key}"`);
    return Object.hasOwn(target, key) ? target[key] : null;
  }
  if (typeof key === 'number') {
    if (!Array.isArray(target)) throw new JqError(`cannot index ${typeOf(target)} with a number`);
    const at = Math.floor(key < 0 ? target.length + key : key);
    return target[at] ?? null;
  }
  throw new JqError(`cannot index ${typeOf(target)} with ${typeOf(key)}`);
}

function text(value: unknown, what: string): string {
  if (typeof value === 'string') return value;
  throw new JqError(`${what} needs a string, got ${typeOf(value)}`);
}

function array(value: unknown, what: string): unknown[] {
  if (Array.isArray(value)) return value;
  throw new JqError(`${what} needs an array, got ${typeOf(value)}`);
}

class Interpreter {
  constructor(private readonly meter: WorkMeter) {}

  run(node: Node, input: unknown): unknown[] {
    this.meter.charge(1);
    switch (node.kind) {
      case 'identity':
        return [input];
      case 'literal':
        return [node.value];
      case 'field':
        return this.run(node.target, input).flatMap((target) =>
          this.run(node.key, input).flatMap((key) => {
            try {
              return [index(target, key)];
            } catch (error) {
              if (node.optional) return [];
              throw error;
            }
          }),
        );
      case 'slice':
        return this.run(node.target, input).map((target) => {
          if (target === null) return null;
          const subject = typeof target === 'string' ? target : array(target, 'a slice');
          const from = node.from === null ? 0 : (this.run(node.from, input)[0] as number);
          const to = node.to === null ? subject.length : (this.run(node.to, input)[0] as number);
          return subject.slice(from, to);
        });
      case 'iterate':
        return this.run(node.target, input).flatMap((target) => {
          try {
            const items = iterate(target);
            this.meter.charge(items.length);
            return items;
          } catch (error) {
            if (node.optional) return [];
            throw error;
          }
        });
      case 'try':
        try {
          return this.run(node.body, input);
        } catch (error) {
          if (error instanceof JqError) return [];
          throw error;
        }
      case 'pipe':
        return this.run(node.left, input).flatMap((value) => this.run(node.right, value));
      case 'comma':
        return [...this.run(node.left, input), ...this.run(node.right, input)];
      case 'alternative': {
        let left: unknown[];
        try {
          left = this.run(node.left, input).filter(truthy);
        } catch (error) {
          if (!(error instanceof JqError)) throw error;
          left = [];
        }
        return left.length > 0 ? left : this.run(node.right, input);
      }
      case 'and':
        return this.run(node.left, input).flatMap((l) =>
          truthy(l) ? this.run(node.right, input).map((r) => truthy(r)) : [false],
        );
      case 'or':
        return this.run(node.left, input).flatMap((l) =>
          truthy(l) ? [true] : this.run(node.right, input).map((r) => truthy(r)),
        );
      case 'binary':
        return this.run(node.right, input).flatMap((r) =>
          this.run(node.left, input).map((l) => {
            switch (node.operator) {
              case '==':
                return dataEquals(l, r, this.meter);
              case '!=':
                return !dataEquals(l, r, this.meter);
              case '<':
                return compareValues(l, r) < 0;
              case '<=':
                return compareValues(l, r) <= 0;
              case '>':
                return compareValues(l, r) > 0;
              case '>=':
                return compareValues(l, r) >= 0;
              default:
                return arithmetic(node.operator, l, r);
            }
          }),
        );
      case 'negate':
        return this.run(node.operand, input).map((v) => {
          if (typeof v !== 'number') throw new JqError(`cannot negate ${typeOf(v)}`);
          return -v;
        });
      case 'array':
        return [node.body === null ? [] : this.run(node.body, input)];
      case 'object': {
        let objects: [string, unknown][][] = [[]];
        for (const entry of node.entries) {
          const keys = this.run(entry.key, input).map((key) => text(key, 'an object key'));
          const values = this.run(entry.value, input);
          objects = objects.flatMap((partial) =>
            keys.flatMap((key) => values.map((value) => [...partial, [key, value] as [string, unknown]])),
          );
          this.meter.charge(objects.length);
        }
        return objects.map((entries) => Object.fromEntries(entries));
      }
      case 'if':
        return this.conditional(node.branches, 0, node.otherwise, input);
      case 'call':
        return this.call(node.name, node.args, input);
    }
  }

  private conditional(
    branches: readonly { test: Node; then: Node }[],
    at: number,
    otherwise: Node | null,
    input: unknown,
  ): unknown[] {
    if (at >= branches.length) return otherwise === null ? [input] : this.run(otherwise, input);
    return this.run(branches[at].test, input).flatMap((test) =>
      truthy(test) ? this.run(branches[at].then, input) : this.conditional(branches, at + 1, otherwise, input),
    );
  }

  private one(node: Node, input: unknown): unknown {
    const values = this.run(node, input);
    if (values.length !== 1) throw new JqError('an argument must yield one value');
    return values[0];
  }

  private sortedBy(items: unknown[], key: Node | undefined): unknown[] {
    this.meter.charge(items.length * Math.max(1, Math.ceil(Math.log2(items.length + 1))));
    const keyed = items.map((item) => ({ item, key: key === undefined ? item : this.run(key, item) }));
    return keyed.sort((a, b) => compareValues(a.key, b.key)).map(({ item }) => item);
  }

  private call(name: string, args: readonly Node[], input: unknown): unknown[] {
    const arity = `${name}/${args.length}`;
    switch (arity) {
      case 'empty/0':
        return [];
      case 'not/0':
        return [!truthy(input)];
      case 'length/0':
        if (input === null || input === undefined) return [0];
        if (typeof input === 'string' || Array.isArray(input)) return [input.length];
        if (isDataMap(input)) return [Object.keys(input).length];
        if (typeof input === 'number') return [Math.abs(input)];
        throw new JqError(`${typeOf(input)} has no length`);
      case 'keys/0':
        if (Array.isArray(input)) return [input.map((_v, i) => i)];
        if (isDataMap(input)) return [Object.keys(input).sort()];
        throw new JqError(`${typeOf(input)} has no keys`);
      case 'keys_unsorted/0':
        if (isDataMap(input)) return [Object.keys(input)];
        throw new JqError(`${typeOf(input)} has no keys`);
      case 'values/0':
        return input === null ? [] : [input];
      case 'has/1':
        return this.run(args[0], input).map((key) =>
          Array.isArray(input)
            ? typeof key === 'number' && key >= 0 && key < input.length
            : isDataMap(input) && Object.hasOwn(input, text(key, 'has')),
        );
      case 'in/1':
        return this.run(args[0], input).map((target) => (isDataMap(target) ? Object.hasOwn(target, text(input, 'in')) : false));
      case 'select/1':
        return this.run(args[0], input).some(truthy) ? [input] : [];
      case 'map/1':
        return [iterate(input).flatMap((item) => this.run(args[0], item))];
      case 'map_values/1':
        if (Array.isArray(input)) return [input.map((item) => this.run(args[0], item)[0] ?? null)];
        if (isDataMap(input))
          return [Object.fromEntries(Object.entries(input).map(([k, v]) => [k, this.run(args[0], v)[0] ?? null]))];
        throw new JqError(`cannot map over ${typeOf(input)}`);
      case 'add/0':
        return [iterate(input).reduce((sum: unknown, item) => add(sum, item), null)];
      case 'any/0':
        return [iterate(input).some(truthy)];
      case 'all/0':
        return [iterate(input).every(truthy)];
      case 'any/1':
        return [iterate(input).some((item) => this.run(args[0], item).some(truthy))];
      case 'all/1':
        return [iterate(input).every((item) => this.run(args[0], item).every(truthy))];
      case 'range/1':
      case 'range/2': {
        const from = args.length === 2 ? Number(this.one(args[0], input)) : 0;
        const to = Number(this.one(args[args.length - 1], input));
        const out: number[] = [];
        this.meter.charge(Math.max(0, to - from));
        for (let i = from; i < to; i++) out.push(i);
        return out;
      }
      case 'first/0':
        return [array(input, 'first')[0] ?? null];
      case 'last/0':
        return [array(input, 'last').at(-1) ?? null];
      case 'first/1':
        return this.run(args[0], input).slice(0, 1);
      case 'last/1':
        return this.run(args[0], input).slice(-1);
      case 'limit/2': {
        const n = Number(this.one(args[0], input));
        return this.run(args[1], input).slice(0, Math.max(0, n));
      }
      case 'reverse/0':
        return [typeof input === 'string' ? [...input].reverse().join('') : [...array(input, 'reverse')].reverse()];
      case 'sort/0':
        return [this.sortedBy([...array(input, 'sort')], undefined)];
      case 'sort_by/1':
        return [this.sortedBy([...array(input, 'sort_by')], args[0])];
      case 'group_by/1': {
        const sorted = this.sortedBy([...array(input, 'group_by')], args[0]);
        const groups: unknown[][] = [];
        let lastKey: unknown[] | undefined;
        for (const item of sorted) {
          const key = this.run(args[0], item);
          if (lastKey !== undefined && compareValues(key, lastKey) === 0) groups[groups.length - 1].push(item);
          else groups.push([item]);
          lastKey = key;
        }
        return [groups];
      }
      case 'unique/0':
      case 'unique_by/1': {
        const key = args[0];
        const sorted = this.sortedBy([...array(input, name)], key);
        const out: unknown[] = [];
        let lastKey: unknown;
        for (const item of sorted) {
          const k = key === undefined ? item : this.run(key, item);
          if (out.length === 0 || compareValues(k, lastKey) !== 0) out.push(item);
          lastKey = k;
        }
        return [out];
      }
      case 'min/0':
        return [this.sortedBy([...array(input, 'min')], undefined)[0] ?? null];
      case 'max/0':
        return [this.sortedBy([...array(input, 'max')], undefined).at(-1) ?? null];
      case 'min_by/1':
        return [this.sortedBy([...array(input, 'min_by')], args[0])[0] ?? null];
      case 'max_by/1':
        return [this.sortedBy([...array(input, 'max_by')], args[0]).at(-1) ?? null];
      case 'flatten/0':
      case 'flatten/1': {
        const depth = args.length === 1 ? Number(this.one(args[0], input)) : 1e9;
        const flat = (items: unknown[], d: number): unknown[] =>
          items.flatMap((item) => (Array.isArray(item) && d > 0 ? flat(item, d - 1) : [item]));
        return [flat(array(input, 'flatten'), depth)];
      }
      case 'to_entries/0':
        if (!isDataMap(input)) throw new JqError(`to_entries needs an object, got ${typeOf(input)}`);
        return [Object.entries(input).map(([key, value]) => ({ key, value }))];
      case 'from_entries/0':
        return [
          Object.fromEntries(
            array(input, 'from_entries').map((entry) => {
              const e = isDataMap(entry) ? entry : {};
              const key = e['key'] ?? e['k'] ?? e['name'] ?? e['Name'] ?? e['Key'];
              return [String(key), e['value'] ?? e['v'] ?? e['Value'] ?? null];
            }),
          ),
        ];
      case 'with_entries/1': {
        if (!isDataMap(input)) throw new JqError(`with_entries needs an object, got ${typeOf(input)}`);
        const entries = Object.entries(input).flatMap(([key, value]) => this.run(args[0], { key, value }));
        return this.call('from_entries', [], entries);
      }
      case 'type/0':
        return [typeOf(input)];
      case 'tostring/0':
        return [typeof input === 'string' ? input : JSON.stringify(input ?? null)];
      case 'tonumber/0': {
        if (typeof input === 'number') return [input];
        const n = Number(text(input, 'tonumber'));
        if (Number.isNaN(n) || input === '') throw new JqError(`cannot parse '${String(input)}' as a number`);
        return [n];
      }
      case 'tojson/0':
        return [JSON.stringify(input ?? null)];
      case 'fromjson/0':
        try {
          return [JSON.parse(text(input, 'fromjson')) as unknown];
        } catch (error) {
          if (error instanceof JqError) throw error;
          throw new JqError('fromjson needs JSON text');
        }
      case 'ascii_downcase/0':
        return [text(input, 'ascii_downcase').replace(/[A-Z]/g, (c) => c.toLowerCase())];
      case 'ascii_upcase/0':
        return [text(input, 'ascii_upcase').replace(/[a-z]/g, (c) => c.toUpperCase())];
      case 'ltrimstr/1':
        return this.run(args[0], input).map((prefix) =>
          typeof input === 'string' && typeof prefix === 'string' && input.startsWith(prefix)
            ? input.slice(prefix.length)
            : input,
        );
      case 'rtrimstr/1':
        return this.run(args[0], input).map((suffix) =>
          typeof input === 'string' && typeof suffix === 'string' && suffix !== '' && input.endsWith(suffix)
            ? input.slice(0, input.length - suffix.length)
            : input,
        );
      case 'startswith/1':
        return this.run(args[0], input).map((prefix) => text(input, 'startswith').startsWith(text(prefix, 'startswith')));
      case 'endswith/1':
        return this.run(args[0], input).map((suffix) => text(input, 'endswith').endsWith(text(suffix, 'endswith')));
      case 'split/1':
        return this.run(args[0], input).map((separator) => text(input, 'split').split(text(separator, 'split')));
      case 'join/1':
        return this.run(args[0], input).map((separator) =>
          array(input, 'join')
            .map((item) => (item === null ? '' : typeof item === 'object' ? JSON.stringify(item) : String(item)))
            .join(text(separator, 'join')),
        );
      case 'contains/1':
        return this.run(args[0], input).map((part) => contains(input, part));
      case 'inside/1':
        return this.run(args[0], input).map((whole) => contains(whole, input));
      case 'index/1':
        return this.run(args[0], input).map((part) => {
          const at = text(input, 'index').indexOf(text(part, 'index'));
          return at === -1 ? null : at;
        });
      case 'floor/0':
        return [Math.floor(input as number)];
      case 'ceil/0':
        return [Math.ceil(input as number)];
      case 'round/0':
        return [Math.round(input as number)];
      case 'abs/0':
        return [Math.abs(input as number)];
      case 'sqrt/0':
        return [Math.sqrt(input as number)];
      case 'tostream/0':
      case 'paths/0':
      case 'getpath/1':
      case 'setpath/2':
      case 'del/1':
      case 'test/1':
      case 'match/1':
      case 'capture/1':
      case 'sub/2':
      case 'gsub/2':
        throw new JqError(`${arity} is not supported in Lanner's jq`);
    }
    throw new JqError(`${arity} is not a known jq function`);
  }
}

function contains(whole: unknown, part: unknown): boolean {
  if (typeof whole === 'string' && typeof part === 'string') return whole.includes(part);
  if (Array.isArray(whole) && Array.isArray(part)) return part.every((p) => whole.some((w) => contains(w, p)));
  if (isDataMap(whole) && isDataMap(part))
    return Object.entries(part).every(([k, v]) => Object.hasOwn(whole, k) && contains(whole[k], v));
  return dataEquals(whole, part);
}

/** Runs a jq program over `input`; the list of what it yields. */
export function runJq(program: string, input: unknown, meter: WorkMeter): unknown[] {
  meter.charge(program.length);
  const node = new Parser(tokenize(program)).program();
  return new Interpreter(meter).run(node, input);
}
