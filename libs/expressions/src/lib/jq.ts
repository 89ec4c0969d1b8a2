/**
 * jq as Kestra's `jq` filter runs it (jackson-jq, jq 1.6), without what a template cannot
 * have: paths (`.a.b`, `.["k"]`, `.[0]`, `.[1:3]`, `.[]`, `?`, `..`), `|`, `,`, literals,
 * string interpolation `"\\(...)"` and `@format "..."`, `[...]` and `{...}` construction,
 * arithmetic, comparisons, `and`/`or`/`not`, `//`, `if/elif/else`, `try ... catch`,
 * variables (`... as $x | ...`, `$ENV` empty) and destructuring patterns (`as [$a, {b: $c}]`),
 * function definitions (`def f(g; $v): ...;`), `reduce` and `foreach`, path expressions
 * (`path`, `paths`, `getpath`, `setpath`, `del`, `delpaths`), the formats `@text @json
 * @html @uri @csv @tsv @sh @base64 @base64d`, regexes (`test match capture scan splits sub
 * gsub`, flags g/x/n, on the linear-time engine of regex.ts) and the builtins of `call`.
 * Refused with a JqError naming it: destructuring alternatives (`?//`), `label`,
 * `import`, the regex flags i/s/l/p, and what needs a clock or other input (`now`,
 * `input`, `debug`, `halt`). A program yields a stream: the filter returns the list of
 * its results, as Kestra's does. Every step is charged to the rendering's budget.
 */
import type { WorkMeter } from './budget';
import { type CompiledRegex, compileRegex, RegexError, searchRegex } from './regex';
import { dataEquals, isDataMap } from './values';

export class JqError extends Error {
  override readonly name = 'JqError';

  /** What `error(value)` raised, for a `try ... catch`. */
  constructor(
    message: string,
    readonly payload?: unknown,
  ) {
    super(message);
  }
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
  | { readonly kind: 'try'; readonly body: Node; readonly handler?: Node }
  | { readonly kind: 'var'; readonly name: string }
  | { readonly kind: 'bind'; readonly source: Node; readonly pattern: Pattern; readonly body: Node }
  | { readonly kind: 'def'; readonly definition: Definition; readonly rest: Node }
  | {
      readonly kind: 'reduce' | 'foreach';
      readonly source: Node;
      readonly pattern: Pattern;
      readonly init: Node;
      readonly update: Node;
      readonly extract: Node | null;
    }
  | { readonly kind: 'template'; readonly parts: readonly (string | Node)[]; readonly format: string | null }
  | { readonly kind: 'format'; readonly name: string };

/**
 * What `as` binds: `$x`, or a destructuring pattern: `[$a, $b]` (by index), `{a: $x}`,
 * `{$a}` (`{a: $a}`), `{"k": $x}`, `{(expr): $x}` (the key computed on the value matched),
 * `{$a: pattern}` (binds `$a` to `.a` and matches `.a` against the pattern), nested.
 */
type Pattern =
  | { readonly kind: 'var'; readonly name: string }
  | { readonly kind: 'array'; readonly items: readonly Pattern[] }
  | {
      readonly kind: 'object';
      readonly entries: readonly { readonly key: Node; readonly variable?: string; readonly value?: Pattern }[];
    };

/** `def name(params): body;`: a parameter is a filter (`f`) or a value (`$v`, each of its argument's outputs). */
interface Definition {
  readonly name: string;
  readonly params: readonly { readonly name: string; readonly value: boolean }[];
  readonly body: Node;
}

/** A string literal's pieces: text, or the source of an interpolated `\( )` expression. */
type StringPart = { readonly text: string } | { readonly source: string; readonly at: number };

interface Token {
  readonly type: 'punct' | 'ident' | 'field' | 'number' | 'string' | 'var' | 'format' | 'end';
  readonly value: string;
  readonly at: number;
  /** A string with interpolations: its pieces. */
  readonly parts?: readonly StringPart[];
}

/** The deepest nesting of (), [] and {} a jq program may have. */
const MAX_NESTING = 64;
/** The most tokens a jq program may have (Kestra's flows use a few dozen). */
const MAX_TOKENS = 1_000;

const PUNCTUATION = [
  '..',
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

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '"': '"', '\\': '\\', '/': '/' };

/** A string literal from its opening quote: its text, or its pieces when it interpolates `\( )`. */
function readString(source: string, start: number): { token: Token; end: number } {
  const parts: StringPart[] = [];
  let textPart = '';
  let j = start + 1;
  while (j < source.length && source[j] !== '"') {
    const c = source[j];
    if (c !== '\\') {
      textPart += c;
      j++;
      continue;
    }
    const next = source[j + 1];
    if (next === '(') {
      // The interpolated expression runs to its matching ')', strings inside it skipped.
      let depth = 1;
      let k = j + 2;
      let quoted = false;
      while (k < source.length && depth > 0) {
        const d = source[k];
        if (quoted) {
          if (d === '\\') k++;
          else if (d === '"') quoted = false;
        } else if (d === '"') quoted = true;
        else if (d === '(') depth++;
        else if (d === ')') depth--;
        k++;
      }
      if (depth > 0) throw new JqError(`unterminated interpolation \\( at ${j + 1}`);
      if (textPart !== '') parts.push({ text: textPart });
      textPart = '';
      parts.push({ source: source.slice(j + 2, k - 1), at: j + 2 });
      j = k;
      continue;
    }
    if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(source.slice(j + 2, j + 6))) {
      textPart += String.fromCharCode(parseInt(source.slice(j + 2, j + 6), 16));
      j += 6;
      continue;
    }
    const escaped = next === undefined ? undefined : ESCAPES[next];
    if (escaped === undefined) throw new JqError(`invalid escape \\${next ?? ''} in a string at ${j + 1}`);
    textPart += escaped;
    j += 2;
  }
  if (j >= source.length) throw new JqError(`unterminated string at ${start + 1}`);
  const interpolated = parts.some((part) => 'source' in part);
  if (textPart !== '' || parts.length === 0) parts.push({ text: textPart });
  const token: Token = interpolated
    ? { type: 'string', value: '', at: start, parts }
    : { type: 'string', value: parts.map((part) => ('text' in part ? part.text : '')).join(''), at: start };
  return { token, end: j + 1 };
}

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
      const read = readString(source, i);
      tokens.push(read.token);
      i = read.end;
      continue;
    }
    if (c === '$' || c === '@') {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i + 1));
      if (!name) throw new JqError(`expected a name after '${c}' at ${i + 1}`);
      if (c === '$' && name[0] === '__loc__') throw new JqError(`$__loc__ is not supported (at ${i + 1})`);
      tokens.push({ type: c === '$' ? 'var' : 'format', value: name[0], at: i });
      i += 1 + name[0].length;
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
    const punct = PUNCTUATION.find((p) => source.startsWith(p, i));
    if (!punct) throw new JqError(`unexpected '${c}' at ${i + 1}`);
    tokens.push({ type: 'punct', value: punct, at: i });
    i += punct.length;
  }
  tokens.push({ type: 'end', value: '', at: source.length });
  // Chains of operators nest as deep as they are long when run: a bound on the program's size keeps them shallow.
  if (tokens.length > MAX_TOKENS) throw new JqError(`the expression has more than ${MAX_TOKENS} tokens`);
  // The parser recurses once per nesting level: a bound keeps a hostile program off the call stack's end.
  let depth = 0;
  for (const token of tokens) {
    if (token.type !== 'punct') continue;
    if (token.value === '(' || token.value === '[' || token.value === '{') depth++;
    else if (token.value === ')' || token.value === ']' || token.value === '}') depth--;
    else if (token.value === '|') continue;
    if (depth > MAX_NESTING) throw new JqError(`the expression nests more than ${MAX_NESTING} levels`);
  }
  if (tokens.filter((token) => token.type === 'ident' && token.value === 'if').length > MAX_NESTING)
    throw new JqError(`the expression holds more than ${MAX_NESTING} conditionals`);
  return tokens;
}

const UNSUPPORTED_KEYWORDS = new Set(['label', 'import', 'include']);
/** Keywords that only continue another construct (`try ... catch`, `... as $x`, `if ... then ... end`). */
const CONTINUATIONS = new Set(['as', 'catch', 'then', 'elif', 'else', 'end']);

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
    if (this.is('def', 'ident')) return this.definition();
    let left = this.comma();
    while (this.accept('|')) {
      // A definition after `|` runs to the end of the pipe.
      if (this.is('def', 'ident')) return { kind: 'pipe', left, right: this.definition() };
      left = { kind: 'pipe', left, right: this.comma() };
    }
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

  /** A string literal: text, or a template whose `\( )` pieces are parsed as programs of their own. */
  private stringNode(token: Token, format: string | null): Node {
    if (token.parts === undefined) {
      return format === null ? { kind: 'literal', value: token.value } : { kind: 'template', parts: [token.value], format };
    }
    const parts = token.parts.map((part) => {
      if ('text' in part) return part.text;
      try {
        return new Parser(tokenize(part.source)).program();
      } catch (error) {
        if (error instanceof JqError) throw new JqError(`in the interpolation at ${part.at + 1}: ${error.message}`);
        throw error;
      }
    });
    return { kind: 'template', parts, format };
  }

  /** `def name: body; rest` or `def name(f; $v): body; rest`: the function is visible in its body and in `rest`. */
  private definition(): Node {
    const start = this.next();
    const name = this.next();
    if (name.type !== 'ident') throw new JqError(`expected a function name after 'def' at ${start.at + 1}`);
    const params: { name: string; value: boolean }[] = [];
    if (this.accept('(')) {
      do {
        const param = this.next();
        if (param.type !== 'ident' && param.type !== 'var') {
          throw new JqError(`expected a parameter name (f or $v) at ${param.at + 1}, in the definition of ${name.value}`);
        }
        params.push({ name: param.value, value: param.type === 'var' });
      } while (this.accept(';'));
      this.expect(')');
    }
    this.expect(':');
    const body = this.pipe();
    this.expect(';');
    return { kind: 'def', definition: { name: name.value, params, body }, rest: this.pipe() };
  }

  /** What follows `as`: a `$variable` or a destructuring pattern; alternatives (`?//`) are refused. */
  private pattern(): Pattern {
    const token = this.next();
    let pattern: Pattern;
    if (token.type === 'var') pattern = { kind: 'var', name: token.value };
    else if (token.type === 'punct' && token.value === '[') {
      const items: Pattern[] = [];
      do items.push(this.pattern());
      while (this.accept(','));
      this.expect(']');
      pattern = { kind: 'array', items };
    } else if (token.type === 'punct' && token.value === '{') {
      pattern = { kind: 'object', entries: this.objectPatternEntries() };
    } else {
      throw new JqError(`expected a $variable or a destructuring pattern ([$a], {a: $x}) after 'as' at ${token.at + 1}`);
    }
    if (this.is('?') && this.tokens[this.index + 1]?.value === '//') {
      throw new JqError(`destructuring alternatives (?//) are not supported (at ${this.peek().at + 1})`);
    }
    return pattern;
  }

  private objectPatternEntries(): { key: Node; variable?: string; value?: Pattern }[] {
    const entries: { key: Node; variable?: string; value?: Pattern }[] = [];
    do {
      const token = this.next();
      if (token.type === 'var') {
        // `{$a}` binds $a to .a; `{$a: pattern}` also matches .a against the pattern.
        const key: Node = { kind: 'literal', value: token.value };
        entries.push(this.accept(':') ? { key, variable: token.value, value: this.pattern() } : { key, variable: token.value });
        continue;
      }
      let key: Node;
      if (token.type === 'ident') key = { kind: 'literal', value: token.value };
      else if (token.type === 'string') key = this.stringNode(token, null);
      else if (token.type === 'punct' && token.value === '(') {
        key = this.pipe();
        this.expect(')');
      } else throw new JqError(`expected a key of an object pattern at ${token.at + 1}`);
      this.expect(':');
      entries.push({ key, value: this.pattern() });
    } while (this.accept(','));
    this.expect('}');
    return entries;
  }

  /** `Term as $x | body`: the body runs as far right as the pipe goes, as in jq. */
  private postfix(allowBinding = true): Node {
    const node = this.postfixTerm();
    if (allowBinding && this.accept('as', 'ident')) {
      const pattern = this.pattern();
      this.expect('|');
      return { kind: 'bind', source: node, pattern, body: this.pipe() };
    }
    return node;
  }

  private postfixTerm(): Node {
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
        return this.stringNode(token, null);
      case 'var':
        return { kind: 'var', name: token.value };
      case 'format':
        if (this.peek().type === 'string') return this.stringNode(this.next(), token.value);
        return { kind: 'format', name: token.value };
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
        return { kind: 'identity' };
      case '..':
        return { kind: 'call', name: 'recurse', args: [] };
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
      case 'try': {
        const body = this.postfix(false);
        const handler = this.accept('catch', 'ident') ? this.postfix(false) : undefined;
        return handler === undefined ? { kind: 'try', body } : { kind: 'try', body, handler };
      }
      case 'reduce':
      case 'foreach': {
        const source = this.postfix(false);
        this.expect('as', 'ident');
        const pattern = this.pattern();
        this.expect('(');
        const init = this.pipe();
        this.expect(';');
        const update = this.pipe();
        const extract = token.value === 'foreach' && this.accept(';') ? this.pipe() : null;
        this.expect(')');
        return { kind: token.value, source, pattern, init, update, extract };
      }
    }
    if (token.value === 'def') {
      // Only where an expression starts (jq's grammar): `1 + def f: 2; f` is not jq.
      throw new JqError(`a definition (def) must start an expression, at ${token.at + 1}: put it in parentheses`);
    }
    if (CONTINUATIONS.has(token.value)) throw new JqError(`unexpected '${token.value}' at ${token.at + 1}`);
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

/**
 * The scope a node runs in, innermost first: `$variables`, functions defined with `def`
 * (each keeps the scope it was defined in: jq's scoping is lexical) and the filter
 * arguments of the function call running (each with the caller's scope).
 */
type Binding =
  | { readonly kind: 'value'; readonly name: string; readonly value: unknown; readonly parent: Binding | null }
  | { readonly kind: 'function'; readonly definition: Definition; readonly parent: Binding | null }
  | {
      readonly kind: 'argument';
      readonly name: string;
      readonly node: Node;
      readonly scope: Binding | null;
      readonly parent: Binding | null;
    };

/** How deep calls of functions defined with `def` may nest (a recursion that does not end stops here). */
const MAX_CALL_DEPTH = 200;

/** jq's `tostring`: text as it is, anything else as JSON. */
function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

const HTML_ESCAPES: Readonly<Record<string, string>> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&#39;', '"': '&quot;' };

/** jq's `@name` formats, applied to one value. */
function formatValue(name: string, value: unknown): string {
  switch (name) {
    case 'text':
      return asText(value);
    case 'json':
      return JSON.stringify(value ?? null);
    case 'html':
      return asText(value).replace(/[<>&'"]/g, (c) => HTML_ESCAPES[c] ?? c);
    case 'uri':
      return [...new TextEncoder().encode(asText(value))]
        .map((byte) =>
          /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte))
            ? String.fromCharCode(byte)
            : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
        )
        .join('');
    case 'csv':
    case 'tsv':
      return array(value, `@${name}`)
        .map((item) => {
          if (typeof item === 'number' || typeof item === 'boolean') return String(item);
          if (item === null || item === undefined) return '';
          if (typeof item !== 'string') throw new JqError(`@${name} cannot format ${typeOf(item)} in a row`);
          return name === 'csv'
            ? `"${item.replace(/"/g, '""')}"`
            : item.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
        })
        .join(name === 'csv' ? ',' : '\t');
    case 'sh': {
      const quote = (item: unknown): string => {
        if (typeof item === 'string') return `'${item.replace(/'/g, "'\\''")}'`;
        if (item === null || typeof item === 'number' || typeof item === 'boolean') return String(item);
        throw new JqError(`@sh cannot quote ${typeOf(item)}`);
      };
      return Array.isArray(value) ? value.map(quote).join(' ') : quote(value);
    }
    case 'base64':
      return bytesToBase64(new TextEncoder().encode(asText(value)));
    case 'base64d':
      return new TextDecoder().decode(base64ToBytes(text(value, '@base64d')));
    default:
      throw new JqError(`@${name} is not a known format`);
  }
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function bytesToBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const [a, b, c] = [bytes[i], bytes[i + 1], bytes[i + 2]];
    const n = (a << 16) | ((b ?? 0) << 8) | (c ?? 0);
    out += BASE64[(n >> 18) & 63] + BASE64[(n >> 12) & 63];
    out += b === undefined ? '=' : BASE64[(n >> 6) & 63];
    out += c === undefined ? '=' : BASE64[n & 63];
  }
  return out;
}

function base64ToBytes(encoded: string): Uint8Array {
  const clean = encoded.replace(/=+$/, '');
  if (/[^A-Za-z0-9+/]/.test(clean)) throw new JqError('@base64d needs base64 text');
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const c of clean) {
    buffer = (buffer << 6) | BASE64.indexOf(c);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 255);
    }
  }
  return Uint8Array.from(bytes);
}

/** jq's regex flags: `g` (every match) and `x` (extended: whitespace and # comments dropped); others refused. */
function regexOf(pattern: unknown, flags: unknown): { regex: CompiledRegex; global: boolean } {
  const source = text(pattern, 'a regular expression');
  const given = flags === null || flags === undefined ? '' : text(flags, 'regex flags');
  for (const flag of given) {
    if (flag !== 'g' && flag !== 'x' && flag !== 'n')
      throw new JqError(`the regex flag '${flag}' is not supported (g, x, n are)`);
  }
  const written = given.includes('x') ? source.replace(/\\#|#[^\n]*|\s+/g, (m) => (m === '\\#' ? m : '')) : source;
  try {
    return { regex: compileRegex(written), global: given.includes('g') };
  } catch (error) {
    if (error instanceof RegexError) throw new JqError(error.message);
    throw error;
  }
}

/** A match as jq's `match` gives it: offset, length, string, captures (with names). */
function matchObject(regex: CompiledRegex, subject: string, slots: readonly number[]): Record<string, unknown> {
  const names = new Map<number, string>([...regex.names].map(([name, index]) => [index, name]));
  const captures = [];
  for (let group = 1; group <= regex.groups; group++) {
    const start = slots[group * 2];
    const end = slots[group * 2 + 1];
    const found = start >= 0 && end >= 0;
    captures.push({
      offset: found ? start : -1,
      length: found ? end - start : 0,
      string: found ? subject.slice(start, end) : null,
      name: names.get(group) ?? null,
    });
  }
  return { offset: slots[0], length: slots[1] - slots[0], string: subject.slice(slots[0], slots[1]), captures };
}

function captureObject(match: Record<string, unknown>): Record<string, unknown> {
  const entries = (match['captures'] as { name: string | null; string: string | null }[])
    .filter((capture) => capture.name !== null)
    .map((capture) => [capture.name as string, capture.string] as [string, unknown]);
  return Object.fromEntries(entries);
}

type PathKey = string | number;

function getPath(root: unknown, path: readonly unknown[]): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || current === undefined) return null;
    current = index(current, key);
  }
  return current ?? null;
}

function setPath(root: unknown, path: readonly unknown[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [key, ...rest] = path;
  if (typeof key === 'string') {
    if (root !== null && root !== undefined && !isDataMap(root)) throw new JqError(`cannot index ${typeOf(root)} with "${key}"`);
    const map = isDataMap(root) ? root : {};
    return Object.fromEntries([...Object.entries(map).filter(([k]) => k !== key), [key, setPath(map[key], rest, value)]]);
  }
  if (typeof key === 'number') {
    if (root !== null && root !== undefined && !Array.isArray(root))
      throw new JqError(`cannot index ${typeOf(root)} with a number`);
    const items = Array.isArray(root) ? [...root] : [];
    const at = key < 0 ? items.length + key : key;
    if (at < 0) throw new JqError('an array index is out of bounds');
    if (at > 100_000) throw new JqError('an array index is too large');
    while (items.length < at) items.push(null);
    items[at] = setPath(items[at], rest, value);
    return items;
  }
  throw new JqError(`a path holds ${typeOf(key)}, not a key or an index`);
}

function deletePaths(root: unknown, paths: readonly (readonly unknown[])[]): unknown {
  // The longest paths first, so that deleting one does not move another.
  const sorted = [...paths].sort((a, b) => compareValues(b, a));
  let result = root;
  for (const path of sorted) result = deletePath(result, path);
  return result;
}

function deletePath(root: unknown, path: readonly unknown[]): unknown {
  if (path.length === 0) return null;
  if (root === null || root === undefined) return null;
  const [key, ...rest] = path;
  if (isDataMap(root) && typeof key === 'string') {
    if (!Object.hasOwn(root, key)) return root;
    if (rest.length === 0) return Object.fromEntries(Object.entries(root).filter(([k]) => k !== key));
    return { ...root, [key]: deletePath(root[key], rest) };
  }
  if (Array.isArray(root) && typeof key === 'number') {
    const at = key < 0 ? root.length + key : key;
    if (at < 0 || at >= root.length) return root;
    if (rest.length === 0) return root.filter((_item, i) => i !== at);
    return root.map((item, i) => (i === at ? deletePath(item, rest) : item));
  }
  throw new JqError(`cannot delete ${typeOf(key)} from ${typeOf(root)}`);
}

class Interpreter {
  private env: Binding | null = null;
  private callDepth = 0;

  constructor(private readonly meter: WorkMeter) {}

  /** Runs `body` in `scope`. */
  private within<T>(scope: Binding | null, body: () => T): T {
    const saved = this.env;
    this.env = scope;
    try {
      return body();
    } finally {
      this.env = saved;
    }
  }

  /** Runs `body` with `$name` bound to `value`. */
  private bound<T>(name: string, value: unknown, body: () => T): T {
    return this.within({ kind: 'value', name, value, parent: this.env }, body);
  }

  /** Runs `body` once for each way `pattern` matches `value` (a key computed by an object pattern may yield several). */
  private matched<T>(pattern: Pattern, value: unknown, body: () => T[]): T[] {
    this.meter.charge(1);
    switch (pattern.kind) {
      case 'var':
        return this.bound(pattern.name, value, body);
      case 'array': {
        if (value !== null && value !== undefined && !Array.isArray(value)) {
          throw new JqError(`cannot index ${typeOf(value)} with a number (destructuring [...])`);
        }
        const matchFrom = (at: number): T[] =>
          at >= pattern.items.length ? body() : this.matched(pattern.items[at], index(value, at), () => matchFrom(at + 1));
        return matchFrom(0);
      }
      case 'object': {
        const matchFrom = (at: number): T[] => {
          if (at >= pattern.entries.length) return body();
          const entry = pattern.entries[at];
          return this.run(entry.key, value).flatMap((key) => {
            if (typeof key !== 'string') throw new JqError(`an object pattern's key must be a string, got ${typeOf(key)}`);
            const item = index(value, key);
            const rest = (): T[] =>
              entry.value === undefined ? matchFrom(at + 1) : this.matched(entry.value, item, () => matchFrom(at + 1));
            return entry.variable === undefined ? rest() : this.bound(entry.variable, item, rest);
          });
        };
        return matchFrom(0);
      }
    }
  }

  /** The function or filter argument `name/arity` visible here, if any (a builtin otherwise). */
  private lookUp(name: string, arity: number): Extract<Binding, { kind: 'function' | 'argument' }> | undefined {
    for (let binding = this.env; binding !== null; binding = binding.parent) {
      if (binding.kind === 'function' && binding.definition.name === name && binding.definition.params.length === arity)
        return binding;
      if (binding.kind === 'argument' && binding.name === name && arity === 0) return binding;
    }
    return undefined;
  }

  /**
   * Calls a function defined with `def` (or a filter argument) on `input`, `evaluate` running
   * its body (`run`, or `paths` for a path expression) in the function's own scope: its
   * definition's scope, itself (so it may recurse), and its arguments. A value parameter
   * `$v` runs its argument on the input and calls the body once per output.
   */
  private invoke<T>(
    callee: Extract<Binding, { kind: 'function' | 'argument' }>,
    args: readonly Node[],
    input: unknown,
    evaluate: (node: Node) => T[],
  ): T[] {
    if (callee.kind === 'argument') return this.within(callee.scope, () => evaluate(callee.node));
    const { definition } = callee;
    if (this.callDepth >= MAX_CALL_DEPTH) {
      throw new JqError(`calls of ${definition.name} nest deeper than ${MAX_CALL_DEPTH} (a recursion that does not end?)`);
    }
    const caller = this.env;
    const bindFrom = (at: number, scope: Binding): T[] => {
      if (at >= definition.params.length) {
        this.callDepth++;
        try {
          return this.within(scope, () => evaluate(definition.body));
        } finally {
          this.callDepth--;
        }
      }
      const param = definition.params[at];
      const argument: Binding = { kind: 'argument', name: param.name, node: args[at], scope: caller, parent: scope };
      if (!param.value) return bindFrom(at + 1, argument);
      return this.within(caller, () => this.run(args[at], input)).flatMap((value) =>
        bindFrom(at + 1, { kind: 'value', name: param.name, value, parent: argument }),
      );
    };
    return bindFrom(0, callee);
  }

  /**
   * The paths `node` selects in `input` (for `path`, `del`, `paths`, `to_entries`…): paths,
   * `.[]`, slices left out, `select`, `recurse`, `|`, `,`, `if`, `//`, `empty`, `first`/`last`.
   */
  private paths(node: Node, input: unknown, prefix: readonly PathKey[]): { path: PathKey[]; value: unknown }[] {
    this.meter.charge(1);
    switch (node.kind) {
      case 'identity':
        return [{ path: [...prefix], value: input }];
      case 'field':
        return this.paths(node.target, input, prefix).flatMap(({ path, value }) =>
          this.run(node.key, input).flatMap((key) => {
            if (typeof key !== 'string' && typeof key !== 'number') throw new JqError(`a path key must be a string or a number`);
            try {
              return [{ path: [...path, key], value: index(value, key) }];
            } catch (error) {
              if (node.optional) return [];
              throw error;
            }
          }),
        );
      case 'iterate':
        return this.paths(node.target, input, prefix).flatMap(({ path, value }) => {
          if (value === null || value === undefined) return [];
          if (Array.isArray(value)) return value.map((item, i) => ({ path: [...path, i], value: item }));
          if (isDataMap(value)) return Object.entries(value).map(([k, item]) => ({ path: [...path, k], value: item }));
          if (node.optional) return [];
          throw new JqError(`cannot iterate over ${typeOf(value)}`);
        });
      case 'pipe':
        return this.paths(node.left, input, prefix).flatMap(({ path, value }) => this.paths(node.right, value, path));
      case 'comma':
        return [...this.paths(node.left, input, prefix), ...this.paths(node.right, input, prefix)];
      case 'if': {
        const walk = (at: number): { path: PathKey[]; value: unknown }[] => {
          if (at >= node.branches.length)
            return node.otherwise === null ? [{ path: [...prefix], value: input }] : this.paths(node.otherwise, input, prefix);
          return this.run(node.branches[at].test, input).flatMap((test) =>
            truthy(test) ? this.paths(node.branches[at].then, input, prefix) : walk(at + 1),
          );
        };
        return walk(0);
      }
      case 'alternative': {
        const left = this.paths(node.left, input, prefix).filter(({ value }) => truthy(value));
        return left.length > 0 ? left : this.paths(node.right, input, prefix);
      }
      case 'try':
        try {
          return this.paths(node.body, input, prefix);
        } catch (error) {
          if (error instanceof JqError) return [];
          throw error;
        }
      case 'def':
        return this.within({ kind: 'function', definition: node.definition, parent: this.env }, () =>
          this.paths(node.rest, input, prefix),
        );
      case 'bind':
        return this.run(node.source, input).flatMap((value) =>
          this.matched(node.pattern, value, () => this.paths(node.body, input, prefix)),
        );
      case 'call': {
        const callee = this.lookUp(node.name, node.args.length);
        if (callee !== undefined) return this.invoke(callee, node.args, input, (body) => this.paths(body, input, prefix));
        if (node.name === 'select' && node.args.length === 1)
          return this.run(node.args[0], input).some(truthy) ? [{ path: [...prefix], value: input }] : [];
        if (node.name === 'empty' && node.args.length === 0) return [];
        if (node.name === 'recurse' && node.args.length === 0) {
          const out: { path: PathKey[]; value: unknown }[] = [];
          const walk = (value: unknown, path: PathKey[]): void => {
            this.meter.charge(1);
            out.push({ path, value });
            if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...path, i]));
            else if (isDataMap(value)) Object.entries(value).forEach(([k, item]) => walk(item, [...path, k]));
          };
          walk(input, [...prefix]);
          return out;
        }
        if ((node.name === 'first' || node.name === 'last') && node.args.length === 1) {
          const all = this.paths(node.args[0], input, prefix);
          return node.name === 'first' ? all.slice(0, 1) : all.slice(-1);
        }
        if (node.name === 'getpath' && node.args.length === 1)
          return this.run(node.args[0], input).map((path) => {
            const keys = array(path, 'getpath') as PathKey[];
            return { path: [...prefix, ...keys], value: getPath(input, keys) };
          });
        break;
      }
      default:
        break;
    }
    throw new JqError('this expression is not a path expression (paths, .[], select, recurse, |, ",", if, //)');
  }

  run(node: Node, input: unknown): unknown[] {
    this.meter.charge(1);
    switch (node.kind) {
      case 'var': {
        if (node.name === 'ENV') return [{}];
        for (let binding = this.env; binding !== null; binding = binding.parent) {
          if (binding.kind === 'value' && binding.name === node.name) return [binding.value];
        }
        throw new JqError(`$${node.name} is not defined`);
      }
      case 'bind':
        return this.run(node.source, input).flatMap((value) =>
          this.matched(node.pattern, value, () => this.run(node.body, input)),
        );
      case 'def':
        return this.within({ kind: 'function', definition: node.definition, parent: this.env }, () => this.run(node.rest, input));
      case 'reduce':
        return this.run(node.init, input).map((initial) => {
          let state = initial;
          for (const item of this.run(node.source, input)) {
            // A pattern that matches several ways updates with the last, as jq's reduce keeps the last output.
            state = this.matched(node.pattern, item, () => this.run(node.update, state)).at(-1) ?? null;
          }
          return state;
        });
      case 'foreach':
        return this.run(node.init, input).flatMap((initial) => {
          let state = initial;
          const out: unknown[] = [];
          for (const item of this.run(node.source, input)) {
            this.matched(node.pattern, item, () => {
              for (const next of this.run(node.update, state)) {
                state = next;
                out.push(...(node.extract === null ? [next] : this.run(node.extract, next)));
              }
              return [];
            });
          }
          return out;
        });
      case 'template': {
        let texts: string[] = [''];
        for (const part of node.parts) {
          const pieces =
            typeof part === 'string'
              ? [part]
              : this.run(part, input).map((value) => (node.format === null ? asText(value) : formatValue(node.format, value)));
          texts = texts.flatMap((prefix) => pieces.map((piece) => prefix + piece));
          this.meter.charge(texts.length);
        }
        return texts;
      }
      case 'format':
        return [formatValue(node.name, input)];
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
          if (!(error instanceof JqError)) throw error;
          if (node.handler === undefined) return [];
          return this.run(node.handler, error.payload ?? error.message);
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
      case 'call': {
        const callee = this.lookUp(node.name, node.args.length);
        if (callee !== undefined) return this.invoke(callee, node.args, input, (body) => this.run(body, input));
        return this.call(node.name, node.args, input);
      }
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

  /** The matches of a regex in `subject`: the first, or every one (an empty match steps one character on). */
  private matches(regex: CompiledRegex, subject: string, every: boolean): Record<string, unknown>[] {
    const found: Record<string, unknown>[] = [];
    let at = 0;
    while (at <= subject.length) {
      const slots = searchRegex(regex, subject, at, this.meter);
      if (slots === null) break;
      found.push(matchObject(regex, subject, slots));
      if (!every) break;
      at = slots[1] === slots[0] ? slots[1] + 1 : slots[1];
    }
    return found;
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
      case 'recurse/0':
        return this.paths({ kind: 'call', name: 'recurse', args: [] }, input, []).map(({ value }) => value);
      case 'recurse/1': {
        const out: unknown[] = [];
        const walk = (value: unknown, depth: number): void => {
          if (depth > 10_000) throw new JqError('recurse went more than 10,000 levels deep');
          out.push(value);
          this.meter.charge(1);
          for (const next of this.run(args[0], value)) walk(next, depth + 1);
        };
        walk(input, 0);
        return out;
      }
      case 'path/1':
        return this.paths(args[0], input, []).map(({ path }) => path);
      case 'paths/0':
        return this.paths({ kind: 'call', name: 'recurse', args: [] }, input, [])
          .filter(({ path }) => path.length > 0)
          .map(({ path }) => path);
      case 'paths/1':
        return this.paths({ kind: 'call', name: 'recurse', args: [] }, input, [])
          .filter(({ path, value }) => path.length > 0 && this.run(args[0], value).some(truthy))
          .map(({ path }) => path);
      case 'leaf_paths/0':
        return this.paths({ kind: 'call', name: 'recurse', args: [] }, input, [])
          .filter(({ path, value }) => path.length > 0 && !Array.isArray(value) && !isDataMap(value))
          .map(({ path }) => path);
      case 'getpath/1':
        return this.run(args[0], input).map((path) => getPath(input, array(path, 'getpath')));
      case 'setpath/2':
        return this.run(args[1], input).flatMap((value) =>
          this.run(args[0], input).map((path) => setPath(input, array(path, 'setpath'), value)),
        );
      case 'delpaths/1':
        return this.run(args[0], input).map((paths) =>
          deletePaths(
            input,
            array(paths, 'delpaths').map((path) => array(path, 'delpaths')),
          ),
        );
      case 'del/1':
        return [
          deletePaths(
            input,
            this.paths(args[0], input, []).map(({ path }) => path),
          ),
        ];
      case 'tostream/0':
        throw new JqError(`${arity} is not supported in Lanner's jq`);
      case 'test/1':
      case 'test/2':
        return this.run(args[0], input).flatMap((pattern) =>
          (args[1] === undefined ? [null] : this.run(args[1], input)).map((flags) => {
            const { regex } = regexOf(pattern, flags);
            return searchRegex(regex, text(input, 'test'), 0, this.meter) !== null;
          }),
        );
      case 'match/1':
      case 'match/2':
      case 'capture/1':
      case 'capture/2':
      case 'scan/1':
      case 'scan/2':
      case 'splits/1':
      case 'splits/2':
        return this.run(args[0], input).flatMap((pattern) =>
          (args[1] === undefined ? [null] : this.run(args[1], input)).flatMap((flags) => {
            const subject = text(input, name);
            const every = name === 'scan' || name === 'splits';
            const { regex, global } = regexOf(pattern, flags);
            const matches = this.matches(regex, subject, global || every);
            if (name === 'match') return matches;
            if (name === 'capture') return matches.map(captureObject);
            if (name === 'scan') {
              return matches.map((match) => {
                const captures = match['captures'] as { string: string | null }[];
                return captures.length === 0 ? match['string'] : captures.map((capture) => capture.string);
              });
            }
            const pieces: string[] = [];
            let at = 0;
            for (const match of matches) {
              pieces.push(subject.slice(at, match['offset'] as number));
              at = (match['offset'] as number) + (match['length'] as number);
            }
            pieces.push(subject.slice(at));
            return pieces;
          }),
        );
      case 'sub/2':
      case 'sub/3':
      case 'gsub/2':
      case 'gsub/3':
        return (args[2] === undefined ? [null] : this.run(args[2], input)).flatMap((flags) =>
          this.run(args[0], input).flatMap((pattern) => {
            const subject = text(input, name);
            const { regex, global } = regexOf(pattern, flags);
            const matches = this.matches(regex, subject, name === 'gsub' || global);
            // The replacement is an expression run on each match's named captures, as in jq.
            let results: string[] = [''];
            let at = 0;
            for (const match of matches) {
              const before = subject.slice(at, match['offset'] as number);
              const replacements = this.run(args[1], captureObject(match)).map((value) => text(value, `${name} replacement`));
              results = results.flatMap((prefix) => replacements.map((replacement) => prefix + before + replacement));
              this.meter.charge(results.length);
              at = (match['offset'] as number) + (match['length'] as number);
            }
            return results.map((prefix) => prefix + subject.slice(at));
          }),
        );
      case 'ascii/0':
        return [String.fromCharCode(input as number)];
      case 'explode/0':
        return [[...text(input, 'explode')].map((c) => c.codePointAt(0) ?? 0)];
      case 'implode/0':
        return [String.fromCodePoint(...array(input, 'implode').map((code) => Number(code)))];
      case 'trim/0':
        return [text(input, 'trim').trim()];
      case 'ltrim/0':
        return [text(input, 'ltrim').trimStart()];
      case 'rtrim/0':
        return [text(input, 'rtrim').trimEnd()];
      case 'utf8bytelength/0':
        return [new TextEncoder().encode(text(input, 'utf8bytelength')).length];
      case 'indices/1':
      case 'rindex/1':
        return this.run(args[0], input).map((part) => {
          const found: number[] = [];
          if (typeof input === 'string') {
            const needle = text(part, name);
            if (needle !== '') for (let i = input.indexOf(needle); i !== -1; i = input.indexOf(needle, i + 1)) found.push(i);
          } else {
            const items = array(input, name);
            const needle = Array.isArray(part) ? part : [part];
            for (let i = 0; i + needle.length <= items.length; i++) {
              if (needle.length > 0 && needle.every((item, k) => dataEquals(items[i + k], item, this.meter))) found.push(i);
            }
          }
          this.meter.charge(found.length);
          return name === 'rindex' ? (found.at(-1) ?? null) : found;
        });
      case 'transpose/0': {
        const rows = array(input, 'transpose').map((row) => array(row, 'transpose'));
        const width = Math.max(0, ...rows.map((row) => row.length));
        this.meter.charge(width * rows.length);
        return [Array.from({ length: width }, (_v, i) => rows.map((row) => row[i] ?? null))];
      }
      case 'isempty/1':
        return [this.run(args[0], input).length === 0];
      case 'error/0':
        throw new JqError(typeof input === 'string' ? input : `${JSON.stringify(input)} (not a string)`, input);
      case 'error/1':
        return this.run(args[0], input).flatMap((value) => {
          throw new JqError(typeof value === 'string' ? value : `${JSON.stringify(value)} (not a string)`, value);
        });
      case 'until/2': {
        let value = input;
        for (let turn = 0; !this.run(args[0], value).some(truthy); turn++) {
          if (turn > 100_000) throw new JqError('until ran more than 100,000 times');
          value = this.one(args[1], value);
        }
        return [value];
      }
      case 'while/2': {
        const out: unknown[] = [];
        let value = input;
        for (let turn = 0; this.run(args[0], value).some(truthy); turn++) {
          if (turn > 100_000) throw new JqError('while ran more than 100,000 times');
          out.push(value);
          value = this.one(args[1], value);
        }
        return out;
      }
      case 'arrays/0':
        return Array.isArray(input) ? [input] : [];
      case 'objects/0':
        return isDataMap(input) ? [input] : [];
      case 'iterables/0':
        return Array.isArray(input) || isDataMap(input) ? [input] : [];
      case 'scalars/0':
        return Array.isArray(input) || isDataMap(input) ? [] : [input];
      case 'booleans/0':
        return typeof input === 'boolean' ? [input] : [];
      case 'numbers/0':
        return typeof input === 'number' ? [input] : [];
      case 'strings/0':
        return typeof input === 'string' ? [input] : [];
      case 'nulls/0':
        return input === null || input === undefined ? [null] : [];
      case 'add/1':
        return [this.run(args[0], input).reduce((sum: unknown, item) => add(sum, item), null)];
      case 'pow/2':
        return this.run(args[1], input).flatMap((exponent) =>
          this.run(args[0], input).map((base) => Math.pow(base as number, exponent as number)),
        );
      case 'log/0':
        return [Math.log(input as number)];
      case 'log10/0':
        return [Math.log10(input as number)];
      case 'log2/0':
        return [Math.log2(input as number)];
      case 'exp/0':
        return [Math.exp(input as number)];
      case 'exp10/0':
        return [Math.pow(10, input as number)];
      case 'infinite/0':
        return [Number.MAX_VALUE];
      case 'isnan/0':
        return [Number.isNaN(input)];
      case 'env/0':
        return [{}];
      case 'now/0':
      case 'input/0':
      case 'inputs/0':
      case 'debug/0':
      case 'stderr/0':
      case 'input_filename/0':
      case 'halt/0':
      case 'halt_error/0':
      case 'halt_error/1':
        throw new JqError(`${arity} is not available in a template (no clock, input or output of its own)`);
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
