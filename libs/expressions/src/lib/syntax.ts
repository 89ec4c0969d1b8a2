/**
 * Parsing: nunjucks' lexer and parser (Jinja syntax, close to Pebble's) turn a
 * template into nunjucks nodes, which are then converted into this library's own
 * small AST. Only the constructs listed in `Statement` and `Expression` exist;
 * everything else nunjucks can parse (macros, includes, regex literals, calls on
 * arbitrary values...) is refused here, before anything is evaluated.
 *
 * nunjucks' own compiler is not used: it generates JS with `new Function`, reads any
 * property of any value (prototype members included, the root of its known sandbox
 * escapes) and only notices an undefined value when it is printed. Evaluating our AST
 * (evaluator.ts) gives Pebble's strict-variable semantics and a closed set of
 * reachable values.
 */
import * as nunjucks from 'nunjucks';
import { EvaluationFailure } from './expression-error';

export interface Position {
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
}

export type BinaryOperator = 'and' | 'or' | 'in' | 'contains' | '+' | '-' | '*' | '/' | '//' | '%' | '**' | '~' | '??' | '???';
export type CompareOperator = '==' | '===' | '!=' | '!==' | '<' | '>' | '<=' | '>=';

export interface NamedArgument {
  readonly name: string;
  readonly value: Expression;
}

export type Expression = Position &
  (
    | { readonly kind: 'literal'; readonly value: string | number | boolean | null }
    | { readonly kind: 'name'; readonly name: string }
    | { readonly kind: 'member'; readonly target: Expression; readonly key: Expression }
    | { readonly kind: 'list'; readonly items: readonly Expression[] }
    | { readonly kind: 'map'; readonly entries: readonly { key: Expression; value: Expression }[] }
    | {
        readonly kind: 'call';
        readonly name: string;
        readonly args: readonly Expression[];
        readonly named: readonly NamedArgument[];
      }
    | {
        readonly kind: 'filter';
        readonly name: string;
        readonly input: Expression;
        readonly args: readonly Expression[];
        readonly named: readonly NamedArgument[];
      }
    | { readonly kind: 'test'; readonly name: string; readonly input: Expression; readonly args: readonly Expression[] }
    | { readonly kind: 'not'; readonly operand: Expression }
    | { readonly kind: 'negate' | 'plus'; readonly operand: Expression }
    | { readonly kind: 'binary'; readonly operator: BinaryOperator; readonly left: Expression; readonly right: Expression }
    | {
        readonly kind: 'compare';
        readonly first: Expression;
        readonly rest: readonly { operator: CompareOperator; operand: Expression }[];
      }
    | {
        readonly kind: 'conditional';
        readonly test: Expression;
        readonly then: Expression;
        readonly otherwise: Expression | null;
      }
  );

export type Statement =
  | { readonly kind: 'text'; readonly text: string }
  | (Position & { readonly kind: 'output'; readonly expression: Expression; readonly offset: number })
  | (Position & { readonly kind: 'if'; readonly test: Expression; readonly then: Statement[]; readonly otherwise: Statement[] })
  | (Position & {
      readonly kind: 'for';
      readonly names: readonly string[];
      readonly iterable: Expression;
      readonly body: Statement[];
      readonly otherwise: Statement[];
    })
  | (Position & {
      readonly kind: 'macro';
      readonly name: string;
      readonly params: readonly { readonly name: string; readonly fallback: Expression | null }[];
      readonly body: Statement[];
    })
  | (Position & {
      readonly kind: 'set';
      readonly names: readonly string[];
      readonly value: Expression | null;
      readonly body: Statement[] | null;
    });

/** Names that reach the JS object model rather than data; never readable. */
export const FORBIDDEN_NAMES: ReadonlySet<string> = new Set([
  'constructor',
  '__proto__',
  'prototype',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
]);

// ---- nunjucks internals, typed just enough for what is read here ----------------

interface RawNode {
  readonly typename: string;
  readonly lineno: number;
  readonly colno: number;
  readonly [field: string]: unknown;
}
interface RawToken {
  readonly type: string;
  readonly value: string;
  readonly lineno: number;
  readonly colno: number;
}
interface RawParser {
  parseOr(): RawNode;
  parseInlineIf(): RawNode;
  parseAsRoot(): RawNode;
  skipSymbol(value: string): boolean;
  skip(type: string): boolean;
  peekToken(): RawToken | null;
  fail(message: string, lineno?: number, colno?: number): never;
}
type NodeClass = new (lineno: number, colno: number, ...fields: unknown[]) => RawNode;
interface NunjucksInternals {
  parser: { Parser: { extend(name: string, props: Record<string, unknown>): new (tokens: unknown) => RawParser } };
  lexer: { lex(source: string, options: object): unknown; TOKEN_COLON: string };
  nodes: { InlineIf: NodeClass; BinOp: NodeClass & { extend(name: string): NodeClass } };
  lib: { TemplateError: new (...args: unknown[]) => Error };
}

// @types/nunjucks describes only the rendering API; the parser is public at runtime.
const internals = nunjucks as unknown as NunjucksInternals;

/** `a ?? b`: Kestra's null-coalescing operator (right side when the left is null or undefined). */
const CoalesceNode = internals.nodes.BinOp.extend('Coalesce');
/** `a ??? b`: Kestra's undefined-coalescing operator (right side only when the left is undefined; null stays). */
const UndefinedCoalesceNode = internals.nodes.BinOp.extend('UndefinedCoalesce');
/** Pebble's `a equals b` (as `==`) and `a contains b` (an item of a list, a key of a map, a part of a text). */
const EqualsNode = internals.nodes.BinOp.extend('Equals');
const ContainsNode = internals.nodes.BinOp.extend('Contains');
/** Pebble's `a..b`: the numbers from a to b, as range(a, b). */
const RangeNode = internals.nodes.BinOp.extend('Range');
const baseParseConcat = (internals.parser.Parser as unknown as { prototype: { parseConcat(this: RawParser): RawNode } }).prototype
  .parseConcat;
const baseParseCompare = (internals.parser.Parser as unknown as { prototype: { parseCompare(this: RawParser): RawNode } })
  .prototype.parseCompare;

/**
 * nunjucks' parser plus Pebble's `cond ? a : b` and Kestra's `a ?? b`. `?` and `??`
 * are not delimiters in nunjucks' lexer, so with spaces around them (as Pebble
 * examples write them) they arrive as symbol tokens.
 */
const PebbleParser = internals.parser.Parser.extend('PebbleParser', {
  parseInlineIf(this: RawParser & { parseCoalesce(): RawNode }): RawNode {
    const node = this.parseCoalesce();
    if (this.skipSymbol('if')) {
      const test = this.parseCoalesce();
      const otherwise = this.skipSymbol('else') ? this.parseCoalesce() : null;
      return new internals.nodes.InlineIf(node.lineno, node.colno, test, node, otherwise);
    }
    if (this.skipSymbol('?')) {
      const then = this.parseInlineIf();
      if (!this.skip(internals.lexer.TOKEN_COLON)) {
        this.fail("expected ':' in the conditional expression 'test ? a : b'");
      }
      const otherwise = this.parseInlineIf();
      return new internals.nodes.InlineIf(node.lineno, node.colno, node, then, otherwise);
    }
    return node;
  },
  parseCoalesce(this: RawParser): RawNode {
    let node = this.parseOr();
    for (;;) {
      if (this.skipSymbol('??')) node = new CoalesceNode(node.lineno, node.colno, node, this.parseOr());
      else if (this.skipSymbol('???')) node = new UndefinedCoalesceNode(node.lineno, node.colno, node, this.parseOr());
      else return node;
    }
  },
  // `..` binds looser than `+` and `~`, tighter than comparisons, as in Pebble.
  parseConcat(this: RawParser & { nextToken(): RawToken | null }): RawNode {
    const node = baseParseConcat.call(this);
    const next = this.peekToken();
    if (next !== null && next.type === 'operator' && next.value === '..') {
      this.nextToken();
      return new RangeNode(node.lineno, node.colno, node, baseParseConcat.call(this));
    }
    return node;
  },
  parseCompare(this: RawParser): RawNode {
    let node = baseParseCompare.call(this);
    for (;;) {
      if (this.skipSymbol('equals')) node = new EqualsNode(node.lineno, node.colno, node, baseParseCompare.call(this));
      else if (this.skipSymbol('contains')) node = new ContainsNode(node.lineno, node.colno, node, baseParseCompare.call(this));
      else return node;
    }
  },
});

// ---- parse ------------------------------------------------------------------

/** Parses a template; throws EvaluationFailure on a syntax error or an unsupported construct. */
export function parseTemplate(source: string): Statement[] {
  let root: RawNode;
  try {
    root = new PebbleParser(withRangeOperator(internals.lexer.lex(source, {}) as RawTokenizer)).parseAsRoot();
  } catch (error) {
    throw syntaxFailure(error, source);
  }
  return statements(children(root), lineStarts(source));
}

interface RawTokenizer {
  nextToken(): RawToken | null;
}

/**
 * nunjucks' lexer reads `1..3` as `1.` then `.3`-ish tokens and `a..b` as two dots: this
 * wrapper turns two adjacent dots (and a number ending in a dot before a dot) into one
 * `..` operator token for the parser. The tokenizer's other members stay its own.
 */
function withRangeOperator(tokens: RawTokenizer): RawTokenizer {
  const wrapper = Object.create(tokens) as RawTokenizer;
  const pending: RawToken[] = [];
  const read = (): RawToken | null => pending.shift() ?? tokens.nextToken.call(wrapper);
  const isDot = (token: RawToken | null): boolean => token !== null && token.type === 'operator' && token.value === '.';
  wrapper.nextToken = (): RawToken | null => {
    const token = read();
    if (token !== null && isDot(token)) {
      const next = read();
      if (isDot(next)) return { ...token, value: '..' };
      if (next !== null) pending.unshift(next);
      return token;
    }
    if (token !== null && token.type === 'float' && token.value.endsWith('.')) {
      const next = read();
      if (next !== null && isDot(next)) {
        pending.unshift({ ...next, value: '..', colno: next.colno - 1 });
        return { ...token, type: 'int', value: token.value.slice(0, -1) };
      }
      if (next !== null) pending.unshift(next);
    }
    return token;
  };
  return wrapper;
}

function syntaxFailure(error: unknown, source: string): EvaluationFailure {
  if (error instanceof internals.lib.TemplateError) {
    const raw = error as Error & { lineno?: number; colno?: number };
    // nunjucks prefixes some messages with its internal method name ("parseIf: ...").
    const reason = raw.message.replace(/^[a-zA-Z]+: (?=expected|unexpected)/, '');
    // Without a position the parser ran out of tokens: the error is at the end.
    const where =
      raw.lineno === undefined || raw.colno === undefined ? endPosition(source) : { line: raw.lineno, column: raw.colno };
    return new EvaluationFailure(`syntax error: ${reason}`, where.line, where.column);
  }
  const end = endPosition(source);
  // nunjucks' lexer throws plain errors for comment delimiters; they carry no position.
  if (error instanceof Error && /end of comment/.test(error.message)) {
    return new EvaluationFailure(`syntax error: ${error.message}; write {{ '#}' }} for a literal '#}'`, end.line, end.column);
  }
  // The parser dereferences a missing token when the template ends inside a tag.
  return new EvaluationFailure('syntax error: the template ends inside a tag', end.line, end.column);
}

function endPosition(source: string): Position {
  const lines = source.split('\n');
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}

function lineStarts(source: string): number[] {
  const starts = [0];
  for (let i = 0; i < source.length; i++) {
    if (source[i] === '\n') starts.push(i + 1);
  }
  return starts;
}

function children(node: RawNode): RawNode[] {
  return (node['children'] as RawNode[] | undefined) ?? [];
}

function at(node: RawNode): Position {
  return { line: node.lineno + 1, column: node.colno + 1 };
}

function unsupported(node: RawNode, what: string): EvaluationFailure {
  return new EvaluationFailure(`${what} is not supported in Lanner expressions`, node.lineno + 1, node.colno + 1);
}

function statements(nodes: RawNode[], starts: number[]): Statement[] {
  const result: Statement[] = [];
  for (const node of nodes) {
    switch (node.typename) {
      case 'Output':
        for (const child of children(node)) {
          if (child.typename === 'TemplateData') {
            result.push({ kind: 'text', text: String(child['value']) });
          } else {
            const offset = (starts[node.lineno] ?? 0) + node.colno;
            result.push({ kind: 'output', ...at(node), expression: expression(child), offset });
          }
        }
        break;
      case 'If': {
        const otherwise = node['else_'] as RawNode | null;
        result.push({
          kind: 'if',
          ...at(node),
          test: expression(node['cond'] as RawNode),
          then: statements(children(node['body'] as RawNode), starts),
          otherwise:
            otherwise === null
              ? []
              : otherwise.typename === 'If'
                ? statements([otherwise], starts)
                : statements(children(otherwise), starts),
        });
        break;
      }
      case 'For': {
        const name = node['name'] as RawNode;
        const names = name.typename === 'Array' ? children(name).map(symbolName) : [symbolName(name)];
        const otherwise = node['else_'] as RawNode | null;
        result.push({
          kind: 'for',
          ...at(node),
          names,
          iterable: expression(node['arr'] as RawNode),
          body: statements(children(node['body'] as RawNode), starts),
          otherwise: otherwise === null ? [] : statements(children(otherwise), starts),
        });
        break;
      }
      case 'Set': {
        const value = node['value'] as RawNode | null;
        const body = node['body'] as RawNode | undefined;
        result.push({
          kind: 'set',
          ...at(node),
          names: (node['targets'] as RawNode[]).map(symbolName),
          value: value === null ? null : expression(value),
          body: value === null && body ? statements(children(body['body'] as RawNode), starts) : null,
        });
        break;
      }
      case 'NodeList':
        result.push(...statements(children(node), starts));
        break;
      case 'Macro': {
        const params: { name: string; fallback: Expression | null }[] = [];
        for (const param of children(node['args'] as RawNode)) {
          if (param.typename === 'KeywordArgs') {
            for (const pair of children(param)) {
              params.push({ name: symbolName(pair['key'] as RawNode), fallback: expression(pair['value'] as RawNode) });
            }
          } else {
            params.push({ name: symbolName(param), fallback: null });
          }
        }
        result.push({
          kind: 'macro',
          ...at(node),
          name: symbolName(node['name'] as RawNode),
          params,
          body: statements(children(node['body'] as RawNode), starts),
        });
        break;
      }
      default:
        throw unsupported(node, `the '${tagName(node.typename)}' tag`);
    }
  }
  return result;
}

function tagName(typename: string): string {
  return typename.replace(/Async.*$/, '').toLowerCase();
}

function symbolName(node: RawNode): string {
  if (node.typename !== 'Symbol') throw unsupported(node, 'a target that is not a plain name');
  const name = String(node['value']);
  if (FORBIDDEN_NAMES.has(name))
    throw new EvaluationFailure(`the name '${name}' is not allowed`, node.lineno + 1, node.colno + 1);
  return name;
}

const BINARY: Readonly<Record<string, BinaryOperator>> = {
  And: 'and',
  Or: 'or',
  In: 'in',
  Add: '+',
  Sub: '-',
  Mul: '*',
  Div: '/',
  FloorDiv: '//',
  Mod: '%',
  Pow: '**',
  Concat: '~',
  Coalesce: '??',
  UndefinedCoalesce: '???',
  Contains: 'contains',
};

function expression(node: RawNode): Expression {
  const pos = at(node);
  const binary = Object.prototype.hasOwnProperty.call(BINARY, node.typename) ? BINARY[node.typename] : undefined;
  if (binary !== undefined) {
    return {
      kind: 'binary',
      ...pos,
      operator: binary,
      left: expression(node['left'] as RawNode),
      right: expression(node['right'] as RawNode),
    };
  }
  switch (node.typename) {
    case 'Range':
      return {
        kind: 'call',
        ...pos,
        name: 'range',
        args: [expression(node['left'] as RawNode), expression(node['right'] as RawNode)],
        named: [],
      };
    case 'Equals':
      return {
        kind: 'compare',
        ...pos,
        first: expression(node['left'] as RawNode),
        rest: [{ operator: '==', operand: expression(node['right'] as RawNode) }],
      };
    case 'Literal': {
      const value = node['value'];
      if (value instanceof RegExp) throw unsupported(node, 'a regular expression literal');
      return { kind: 'literal', ...pos, value: value as string | number | boolean | null };
    }
    case 'Symbol':
      return { kind: 'name', ...pos, name: symbolName(node) };
    case 'LookupVal': {
      const key = expression(node['val'] as RawNode);
      if (key.kind === 'literal' && typeof key.value === 'string' && FORBIDDEN_NAMES.has(key.value)) {
        throw new EvaluationFailure(`access to '${key.value}' is not allowed`, key.line, key.column);
      }
      return { kind: 'member', ...pos, target: expression(node['target'] as RawNode), key };
    }
    case 'Group': {
      const items = children(node).map(expression);
      return items.length === 1 ? items[0] : { kind: 'list', ...pos, items };
    }
    case 'Array':
      return { kind: 'list', ...pos, items: children(node).map(expression) };
    case 'Dict':
      return {
        kind: 'map',
        ...pos,
        entries: children(node).map((pair) => {
          const rawKey = pair['key'] as RawNode;
          // `{a: 1}` means the key "a", as in Pebble and nunjucks.
          const key: Expression =
            rawKey.typename === 'Symbol'
              ? { kind: 'literal', ...at(rawKey), value: String(rawKey['value']) }
              : expression(rawKey);
          return { key, value: expression(pair['value'] as RawNode) };
        }),
      };
    case 'FunCall': {
      const callee = node['name'] as RawNode;
      if (callee.typename !== 'Symbol')
        throw unsupported(node, 'calling anything but a named function (now, secret, range, max, min)');
      const { args, named } = argumentsOf(children(node['args'] as RawNode));
      // Positioned at the function name, where a reader looks, not at its '('.
      return { kind: 'call', ...at(callee), name: String(callee['value']), args, named };
    }
    case 'Filter': {
      const [input, ...rest] = children(node['args'] as RawNode);
      if (input.typename === 'Capture') throw unsupported(node, "the 'filter' tag");
      const { args, named } = argumentsOf(rest);
      return { kind: 'filter', ...pos, name: String((node['name'] as RawNode)['value']), input: expression(input), args, named };
    }
    case 'Is': {
      const right = node['right'] as RawNode;
      const input = expression(node['left'] as RawNode);
      if (right.typename === 'Symbol') return { kind: 'test', ...pos, name: String(right['value']), input, args: [] };
      if (right.typename === 'Literal' && right['value'] === null) return { kind: 'test', ...pos, name: 'null', input, args: [] };
      if (right.typename === 'FunCall' && (right['name'] as RawNode).typename === 'Symbol') {
        return {
          kind: 'test',
          ...pos,
          name: String((right['name'] as RawNode)['value']),
          input,
          args: argumentsOf(children(right['args'] as RawNode)).args,
        };
      }
      throw unsupported(right, 'this test');
    }
    case 'Not':
      return { kind: 'not', ...pos, operand: expression(node['target'] as RawNode) };
    case 'Neg':
      return { kind: 'negate', ...pos, operand: expression(node['target'] as RawNode) };
    case 'Pos':
      return { kind: 'plus', ...pos, operand: expression(node['target'] as RawNode) };
    case 'Compare':
      return {
        kind: 'compare',
        ...pos,
        first: expression(node['expr'] as RawNode),
        rest: (node['ops'] as RawNode[]).map((op) => ({
          operator: op['type'] as CompareOperator,
          operand: expression(op['expr'] as RawNode),
        })),
      };
    case 'InlineIf': {
      const otherwise = node['else_'] as RawNode | null;
      return {
        kind: 'conditional',
        ...pos,
        test: expression(node['cond'] as RawNode),
        then: expression(node['body'] as RawNode),
        otherwise: otherwise === null ? null : expression(otherwise),
      };
    }
    default:
      throw unsupported(node, `'${node.typename}'`);
  }
}

function argumentsOf(nodes: RawNode[]): { args: Expression[]; named: NamedArgument[] } {
  const args: Expression[] = [];
  const named: NamedArgument[] = [];
  for (const node of nodes) {
    if (node.typename === 'KeywordArgs') {
      for (const pair of children(node)) {
        named.push({ name: symbolName(pair['key'] as RawNode), value: expression(pair['value'] as RawNode) });
      }
    } else {
      args.push(expression(node));
    }
  }
  return { args, named };
}

// ---- segments ---------------------------------------------------------------

export interface Segment {
  readonly start: number;
  /** Exclusive. */
  readonly end: number;
  readonly kind: 'output' | 'tag' | 'comment';
}

/**
 * Finds the `{{ }}`, `{% %}` and `{# #}` segments of a template by their delimiters,
 * skipping quoted strings inside them the way nunjucks' lexer does. Used to quote the
 * segment an error is in and to copy a secret segment verbatim.
 */
export function scanSegments(source: string): Segment[] {
  const segments: Segment[] = [];
  let i = 0;
  while (i < source.length - 1) {
    const open = source.slice(i, i + 2);
    if (open === '{#') {
      const close = source.indexOf('#}', i + 2);
      const end = close < 0 ? source.length : close + 2;
      segments.push({ start: i, end, kind: 'comment' });
      i = end;
    } else if (open === '{{' || open === '{%') {
      const closer = open === '{{' ? '}}' : '%}';
      let j = i + 2;
      let quote: string | null = null;
      while (j < source.length) {
        const c = source[j];
        if (quote !== null) {
          if (c === '\\') j++;
          else if (c === quote) quote = null;
        } else if (c === '"' || c === "'") {
          quote = c;
        } else if (source.startsWith(closer, j)) {
          j += 2;
          break;
        }
        j++;
      }
      const end = Math.min(j, source.length);
      segments.push({ start: i, end, kind: open === '{{' ? 'output' : 'tag' });
      i = end;
    } else {
      i++;
    }
  }
  return segments;
}

/** The segment text around a 1-based position, for error messages. */
export function segmentAt(source: string, line: number, column: number): string {
  const starts = lineStarts(source);
  const offset = (starts[line - 1] ?? 0) + column - 1;
  const segments = scanSegments(source);
  const containing =
    segments.find((s) => s.start <= offset && offset < s.end) ?? [...segments].reverse().find((s) => s.start <= offset);
  const text = containing ? source.slice(containing.start, containing.end) : source;
  // A whole script is no help in a one-line error.
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
