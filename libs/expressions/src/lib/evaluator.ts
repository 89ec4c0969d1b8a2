/**
 * Evaluates the AST from syntax.ts against a context. Pebble's strict variables, as
 * Kestra configures Pebble: reading a name or member that does not exist fails,
 * except as the input of `default`, of `??` and of the `defined`/`null`/`empty` tests.
 * One Evaluation per render call: nothing survives it.
 */
import { type Budget, LimitExceeded } from './budget';
import { Arguments, BuiltinError, FILTERS, TESTS, extremum, newDataMap, range } from './builtins';
import { EvaluationFailure } from './expression-error';
import { type RandomSource, randomId, randomInt, randomUuid } from './random';
import { CompareOperator, Expression, Position, Statement, parseTemplate } from './syntax';
import { parse as parseYaml } from 'yaml';
import { MISSING, dataEquals, isDataMap, isTruthy, readMember, typeName } from './values';

/**
 * What a `secret('NAME')` call does in this render:
 * - `keep`: a `{{ }}` segment calling it is copied to the output for the worker
 *   (the executor's renderTemplate); anywhere else it is refused;
 * - `refuse`: it fails (conditions, tags, lists: values the executor needs now);
 * - `resolve`: it asks the resolver (the worker's renderSecrets).
 */
export type SecretPolicy =
  | { readonly mode: 'keep' | 'refuse' }
  | {
      readonly mode: 'resolve';
      readonly resolve: (name: string) => string | undefined;
      /** What a file function gives for a URI (fetched by the worker beforehand); absent: no internal storage. */
      readonly files?: FileLookup;
    };

/**
 * Kestra's functions over internal storage: resolved on the worker only, like
 * secret() (the executor never reads a file). On the executor their argument is
 * evaluated to a `kestra:///` URI and the segment is kept for the worker.
 */
export const FILE_FUNCTIONS = ['read', 'fileSize', 'fileExists', 'isFileEmpty'] as const;
export type FileFunction = (typeof FILE_FUNCTIONS)[number];
const FILE_FUNCTION_NAMES: ReadonlySet<string> = new Set(FILE_FUNCTIONS);
/** The operators a segment kept for the worker may be written back with. */
const PRINTABLE_OPERATORS: ReadonlySet<string> = new Set(['and', 'or', '+', '-', '*', '/', '%', '~']);

/** A file function's result for a URI; throws (with a message naming the URI) when it has none. */
export type FileLookup = (name: FileFunction, uri: string) => unknown;

/** One file function call a kept segment makes, with its URI. */
export interface FileCall {
  readonly name: FileFunction;
  readonly uri: string;
}

export interface EvaluationOptions {
  readonly context: Readonly<Record<string, unknown>>;
  /** What now() returns; absent on the worker, which renders no clock. */
  readonly now?: Date;
  /** What uuid(), id() and randomInt() draw from; absent where no one gave it. */
  readonly random?: RandomSource;
  readonly secrets: SecretPolicy;
  /** Read every missing name or member as undefined (worker-selector tags: an absent value drops the tag). */
  readonly lenient?: boolean;
  /** The rendering's limits and what it has used of them (shared by every template of one renderValue). */
  readonly budget: Budget;
}

/** A piece of output: rendered text, or a segment copied verbatim for the worker. */
export type OutputPart =
  | { readonly kind: 'text'; readonly text: string }
  /** `source`: the segment as the worker gets it, when it is not the template's own text. */
  | { readonly kind: 'kept'; readonly offset: number; readonly source?: string };

function resolvedElsewhere(name: string): string {
  return `${name}() is resolved only on the worker, so it can only be used inside a {{ }} segment of a task property`;
}

const SECRET_ELSEWHERE =
  'secret() is resolved only on the worker, so it can only be used inside a {{ }} segment of a task property';

class Scope {
  readonly vars = new Map<string, unknown>();
  /** `isolated`: a macro's scope, which sees its arguments and not the template's context (as in Pebble). */
  constructor(
    readonly parent: Scope | null,
    readonly isolated = false,
  ) {}

  /** Whether names missing here stay missing (inside a macro) rather than being read from the context. */
  get inMacro(): boolean {
    return this.isolated || (this.parent?.inMacro ?? false);
  }

  find(name: string): { found: true; value: unknown } | { found: false } {
    if (this.vars.has(name)) return { found: true, value: this.vars.get(name) };
    return this.parent ? this.parent.find(name) : { found: false };
  }
}

const START: Position = { line: 1, column: 1 };

/** Whether rendered text still holds an expression (render.ts' hasExpression, without importing it back). */
function hasExpressionText(text: string): boolean {
  return text.includes('{{') || text.includes('{%') || text.includes('{#');
}

type MacroStatement = Extract<Statement, { kind: 'macro' }>;

/** How deep macro calls may nest (a macro calling itself). */
const MAX_MACRO_DEPTH = 100;

/** The macros a template defines, wherever they are written (Pebble registers them before rendering). */
function collectMacros(statements: readonly Statement[], into: Map<string, MacroStatement>): void {
  for (const statement of statements) {
    switch (statement.kind) {
      case 'macro':
        into.set(statement.name, statement);
        collectMacros(statement.body, into);
        break;
      case 'if':
        collectMacros(statement.then, into);
        collectMacros(statement.otherwise, into);
        break;
      case 'for':
        collectMacros(statement.body, into);
        collectMacros(statement.otherwise, into);
        break;
      case 'set':
        collectMacros(statement.body ?? [], into);
        break;
      default:
        break;
    }
  }
}

/** How deep render() may nest (a value whose text calls render() on itself). */
const MAX_RENDER_DEPTH = 10;

/** `json(text)` / `fromJson(text)`: the value JSON text holds. */
function parseJson(a: Arguments, name: string, budget: Budget): unknown {
  const source = a.args[0];
  if (source === null || source === undefined) return null;
  if (typeof source !== 'string') throw new BuiltinError(`${name}() expects JSON text, got ${typeName(source)}`);
  budget.charge(source.length);
  let parsed: unknown;
  try {
    parsed = JSON.parse(source) as unknown;
  } catch {
    throw new BuiltinError(`${name}() expects JSON text`);
  }
  budget.listsWithin(parsed, `${name}()`);
  return parsed;
}

/** `yaml(text)`: the value YAML text holds. */
function parseYamlText(a: Arguments, budget: Budget): unknown {
  const source = a.args[0];
  if (source === null || source === undefined) return null;
  if (typeof source !== 'string') throw new BuiltinError(`yaml() expects YAML text, got ${typeName(source)}`);
  budget.charge(source.length);
  let parsed: unknown;
  try {
    parsed = parseYaml(source, { maxAliasCount: 100 }) as unknown;
  } catch {
    throw new BuiltinError('yaml() expects YAML text');
  }
  budget.listsWithin(parsed, 'yaml()');
  return parsed ?? null;
}

/**
 * Kestra's `currentEachOutput(outputs.task)`: inside ForEach, the outputs of `task` for
 * the current values (the enclosing values, outermost first, then this task run's own).
 */
function currentEachOutput(a: Arguments, context: Readonly<Record<string, unknown>>): unknown {
  let current = a.args[0];
  const parents = Array.isArray(context['parents']) ? [...(context['parents'] as unknown[])].reverse() : [];
  const own = isDataMap(context['taskrun']) ? context['taskrun']['value'] : undefined;
  const values = [...parents.map((p) => (isDataMap(p) && isDataMap(p['taskrun']) ? p['taskrun']['value'] : undefined)), own];
  for (const value of values) {
    if (typeof value !== 'string') continue;
    if (!isDataMap(current) || !Object.hasOwn(current, value))
      throw new BuiltinError(`currentEachOutput() finds no outputs for the value '${value}'`);
    current = current[value];
  }
  return current ?? null;
}

export class Evaluation {
  private readonly budget: Budget;
  private readonly macros = new Map<string, MacroStatement>();
  private macroDepth = 0;

  constructor(
    private readonly options: EvaluationOptions,
    private readonly depth = 0,
  ) {
    this.budget = options.budget;
  }

  /** Renders statements into parts (text and, with the `keep` policy, kept secret segments). */
  render(statements: readonly Statement[]): OutputPart[] {
    collectMacros(statements, this.macros);
    const parts: OutputPart[] = [];
    this.renderInto(statements, new Scope(null), parts, this.options.secrets.mode === 'keep', START);
    return parts;
  }

  /** Evaluates one expression to its value (not its text). */
  value(expression: Expression): unknown {
    return this.evaluate(expression, new Scope(null), this.lenient);
  }

  private get lenient(): boolean {
    return this.options.lenient === true;
  }

  /** `enclosing`: where a limit reached by plain text points (the loop or block it repeats in). */
  private renderInto(
    statements: readonly Statement[],
    scope: Scope,
    parts: OutputPart[],
    keepSecrets: boolean,
    enclosing: Position,
  ): void {
    for (const statement of statements) {
      const at = statement.kind === 'text' ? enclosing : statement;
      try {
        this.renderStatement(statement, scope, parts, keepSecrets, at);
      } catch (error) {
        if (error instanceof LimitExceeded) throw new EvaluationFailure(error.reason, at.line, at.column);
        throw error;
      }
    }
  }

  private emit(parts: OutputPart[], text: string): void {
    this.budget.output(text.length);
    parts.push({ kind: 'text', text });
  }

  private renderStatement(statement: Statement, scope: Scope, parts: OutputPart[], keepSecrets: boolean, at: Position): void {
    this.budget.step();
    switch (statement.kind) {
      case 'text':
        this.emit(parts, statement.text);
        break;
      case 'output':
        if (containsWorkerCall(statement.expression)) {
          const fileCall = firstFileCall(statement.expression);
          if (this.options.secrets.mode === 'resolve') {
            this.emit(parts, this.print(this.evaluate(statement.expression, scope, this.lenient), statement));
          } else if (keepSecrets && fileCall !== undefined) {
            const source = `{{ ${this.workerSource(statement.expression, scope, fileCall.name as FileFunction)} }}`;
            parts.push({ kind: 'kept', offset: statement.offset, source });
          } else if (keepSecrets) {
            assertWorkerEvaluable(statement.expression);
            parts.push({ kind: 'kept', offset: statement.offset });
          } else {
            throw new EvaluationFailure(
              fileCall ? resolvedElsewhere(fileCall.name) : SECRET_ELSEWHERE,
              statement.line,
              statement.column,
            );
          }
        } else {
          this.emit(parts, this.print(this.evaluate(statement.expression, scope, this.lenient), statement));
        }
        break;
      case 'if':
        this.renderInto(
          isTruthy(this.evaluate(statement.test, scope, this.lenient)) ? statement.then : statement.otherwise,
          scope,
          parts,
          keepSecrets,
          at,
        );
        break;
      case 'for':
        this.renderLoop(statement, scope, parts, keepSecrets);
        break;
      case 'macro':
        // Defined before rendering (collectMacros); prints nothing where it is written.
        break;
      case 'set': {
        let value: unknown;
        if (statement.value !== null) {
          value = this.evaluate(statement.value, scope, this.lenient);
        } else {
          // A captured block becomes a value; a kept secret segment cannot live in one.
          const captured: OutputPart[] = [];
          this.renderInto(statement.body ?? [], new Scope(scope), captured, false, at);
          value = captured.map((part) => (part.kind === 'text' ? part.text : '')).join('');
        }
        for (const name of statement.names) scope.vars.set(name, value);
        break;
      }
    }
  }

  private renderLoop(
    statement: Extract<Statement, { kind: 'for' }>,
    scope: Scope,
    parts: OutputPart[],
    keepSecrets: boolean,
  ): void {
    const iterable = this.evaluate(statement.iterable, scope, this.lenient) ?? null;
    let items: unknown[];
    if (iterable === null) items = [];
    else if (Array.isArray(iterable)) items = iterable;
    // Pebble iterates a map as entries with `key` and `value`.
    else if (isDataMap(iterable)) {
      const entries = Object.entries(iterable);
      this.budget.list(entries.length, "'for'");
      items = entries.map(([key, value]) =>
        newDataMap([
          ['key', key],
          ['value', value],
        ]),
      );
    } else
      throw new EvaluationFailure(
        `'for' needs a list or a map, got ${typeName(iterable)}`,
        statement.iterable.line,
        statement.iterable.column,
      );

    if (items.length === 0) {
      this.renderInto(statement.otherwise, scope, parts, keepSecrets, statement);
      return;
    }
    items.forEach((item, index) => {
      // A turn is a step even when the body is empty: nested loops over nothing still cost.
      this.budget.step();
      const body = new Scope(scope);
      if (statement.names.length === 1) {
        body.vars.set(statement.names[0], item);
      } else {
        const values =
          isDataMap(item) && isDataMap(iterable) ? [item['key'], item['value']] : Array.isArray(item) ? item : [item];
        statement.names.forEach((name, i) => body.vars.set(name, values[i] ?? null));
      }
      // Pebble's loop variable: index counts from 0.
      body.vars.set(
        'loop',
        newDataMap([
          ['index', index],
          ['revindex', items.length - index - 1],
          ['first', index === 0],
          ['last', index === items.length - 1],
          ['length', items.length],
        ]),
      );
      this.renderInto(statement.body, body, parts, keepSecrets, statement);
    });
  }

  private print(value: unknown, at: Position, what = 'printing it'): string {
    try {
      return this.budget.print(value, what);
    } catch (error) {
      if (error instanceof LimitExceeded) throw error;
      throw new EvaluationFailure(`cannot print ${typeName(value)}`, at.line, at.column);
    }
  }

  /** A limit reached while evaluating `expr` points at it (the innermost expression that was building). */
  private evaluate(expr: Expression, scope: Scope, lenient: boolean): unknown {
    try {
      return this.evaluateUnguarded(expr, scope, lenient);
    } catch (error) {
      if (error instanceof LimitExceeded) throw new EvaluationFailure(error.reason, expr.line, expr.column);
      throw error;
    }
  }

  /**
   * `lenient`: a missing name or member yields undefined instead of failing (inside
   * `default`, `??` and the defined/null/empty tests, as in Pebble's strict mode).
   */
  private evaluateUnguarded(expr: Expression, scope: Scope, lenient: boolean): unknown {
    this.budget.step();
    switch (expr.kind) {
      case 'literal':
        return expr.value;
      case 'name': {
        const local = scope.find(expr.name);
        if (local.found) return local.value;
        // Pebble's `_context`: the whole context, the way into it from a macro.
        if (expr.name === '_context') return this.options.context;
        if (scope.inMacro) {
          if (lenient) return undefined;
          throw new EvaluationFailure(
            `'${expr.name}' is undefined in the macro (a macro sees its arguments only; pass _context for the rest)`,
            expr.line,
            expr.column,
          );
        }
        const value = readMember(this.options.context, expr.name);
        if (value !== MISSING) return value;
        if (lenient) return undefined;
        throw new EvaluationFailure(`'${expr.name}' is undefined`, expr.line, expr.column);
      }
      case 'member': {
        const target = this.evaluate(expr.target, scope, lenient);
        if (target === undefined && lenient) return undefined;
        const key = this.evaluate(expr.key, scope, false);
        const value = readMember(target, key);
        if (value !== MISSING) return value;
        if (lenient) return undefined;
        const root = rootOf(expr);
        const why = target === null ? ` ('${describe(expr.target)}' is null)` : '';
        throw new EvaluationFailure(`'${describe(expr)}' is undefined${why}`, root.line, root.column);
      }
      case 'list':
        return expr.items.map((item) => this.evaluate(item, scope, lenient));
      case 'map':
        return newDataMap(
          expr.entries.map(({ key, value }) => {
            const name = this.evaluate(key, scope, false);
            if (typeof name !== 'string' && typeof name !== 'number') {
              throw new EvaluationFailure(`a map key must be text or a number, got ${typeName(name)}`, key.line, key.column);
            }
            return [String(name), this.evaluate(value, scope, lenient)];
          }),
        );
      case 'call':
        return this.call(expr, scope);
      case 'filter': {
        const filter = FILTERS.get(expr.name);
        if (!filter) throw new EvaluationFailure(`unknown filter '${expr.name}'`, expr.line, expr.column);
        const input = this.evaluate(expr.input, scope, lenient || expr.name === 'default');
        // Inside a lenient input, a filter of an undefined value stays undefined.
        if (input === undefined && expr.name !== 'default') return undefined;
        return this.guard(expr, () => filter(input, this.arguments(expr.args, expr.named, scope), this.budget));
      }
      case 'test': {
        const test = TESTS.get(expr.name);
        if (!test) throw new EvaluationFailure(`unknown test '${expr.name}'`, expr.line, expr.column);
        const tolerant = ['defined', 'undefined', 'null', 'none', 'empty'].includes(expr.name);
        const input = this.evaluate(expr.input, scope, lenient || tolerant);
        const args = expr.args.map((a) => this.evaluate(a, scope, false));
        return this.guard(expr, () => test(input, args));
      }
      case 'not':
        return !isTruthy(this.evaluate(expr.operand, scope, lenient));
      case 'negate':
      case 'plus': {
        const operand = this.evaluate(expr.operand, scope, lenient);
        if (typeof operand !== 'number')
          throw new EvaluationFailure(
            `unary '${expr.kind === 'negate' ? '-' : '+'}' needs a number, got ${typeName(operand)}`,
            expr.line,
            expr.column,
          );
        return expr.kind === 'negate' ? -operand : operand;
      }
      case 'conditional':
        if (isTruthy(this.evaluate(expr.test, scope, lenient))) return this.evaluate(expr.then, scope, lenient);
        return expr.otherwise === null ? null : this.evaluate(expr.otherwise, scope, lenient);
      case 'compare': {
        let left = this.evaluate(expr.first, scope, lenient);
        for (const { operator, operand } of expr.rest) {
          const right = this.evaluate(operand, scope, lenient);
          if (!compare(operator, left, right, expr, this.budget)) return false;
          left = right;
        }
        return true;
      }
      case 'binary':
        return this.binary(expr, scope, lenient);
    }
  }

  private binary(expr: Extract<Expression, { kind: 'binary' }>, scope: Scope, lenient: boolean): unknown {
    switch (expr.operator) {
      // Pebble's and/or yield booleans.
      case 'and':
        return isTruthy(this.evaluate(expr.left, scope, lenient)) && isTruthy(this.evaluate(expr.right, scope, lenient));
      case 'or':
        return isTruthy(this.evaluate(expr.left, scope, lenient)) || isTruthy(this.evaluate(expr.right, scope, lenient));
      case '??': {
        const left = this.evaluate(expr.left, scope, true);
        return left === undefined || left === null ? this.evaluate(expr.right, scope, lenient) : left;
      }
      case '~': {
        const left = this.print(this.evaluate(expr.left, scope, lenient), expr, "'~'");
        const right = this.print(this.evaluate(expr.right, scope, lenient), expr, "'~'");
        this.budget.text(left.length + right.length, "'~'");
        return left + right;
      }
      case '???': {
        const left = this.evaluate(expr.left, scope, true);
        return left === undefined ? this.evaluate(expr.right, scope, lenient) : left;
      }
      case 'in':
        return this.contains(this.evaluate(expr.right, scope, lenient), this.evaluate(expr.left, scope, lenient), expr, 'in');
      case 'contains': {
        const haystack = this.evaluate(expr.left, scope, lenient);
        const needle = this.evaluate(expr.right, scope, lenient);
        // Pebble: a list on the right asks for every one of its items.
        if (Array.isArray(needle) && Array.isArray(haystack)) {
          return needle.every((item) => this.contains(haystack, item, expr, 'contains'));
        }
        return this.contains(haystack, needle, expr, 'contains');
      }
      default: {
        const left = this.evaluate(expr.left, scope, lenient);
        const right = this.evaluate(expr.right, scope, lenient);
        if (expr.operator === '+' && Array.isArray(left) && Array.isArray(right)) {
          this.budget.list(left.length + right.length, "'+'");
          return [...left, ...right];
        }
        return arithmetic(expr.operator, left, right, expr);
      }
    }
  }

  /** `needle in haystack`, `haystack contains needle`: an item of a list, a key of a map, a part of a text. */
  private contains(haystack: unknown, needle: unknown, expr: Position, operator: string): boolean {
    if (Array.isArray(haystack)) return haystack.some((item) => dataEquals(item, needle, this.budget));
    if (typeof haystack === 'string' && typeof needle === 'string') {
      this.budget.charge(haystack.length);
      return haystack.includes(needle);
    }
    if (isDataMap(haystack) && typeof needle === 'string') return Object.prototype.hasOwnProperty.call(haystack, needle);
    const side = operator === 'in' ? 'on its right' : 'on its left';
    throw new EvaluationFailure(
      `'${operator}' needs a list, a map or text ${side}, got ${typeName(haystack)}`,
      expr.line,
      expr.column,
    );
  }

  /** A macro call: its body rendered with the arguments as its only names, to text. */
  private callMacro(macro: MacroStatement, expr: Extract<Expression, { kind: 'call' }>, scope: Scope): string {
    if (this.macroDepth >= MAX_MACRO_DEPTH) {
      throw new EvaluationFailure(`macro calls nest deeper than ${MAX_MACRO_DEPTH} ('${macro.name}')`, expr.line, expr.column);
    }
    if (expr.args.length > macro.params.length) {
      throw new EvaluationFailure(
        `the macro '${macro.name}' takes ${macro.params.length} argument(s), got ${expr.args.length}`,
        expr.line,
        expr.column,
      );
    }
    const body = new Scope(null, true);
    const given = new Map<string, unknown>();
    expr.args.forEach((arg, index) => given.set(macro.params[index].name, this.evaluate(arg, scope, this.lenient)));
    for (const named of expr.named) {
      if (!macro.params.some((param) => param.name === named.name)) {
        throw new EvaluationFailure(
          `the macro '${macro.name}' has no argument '${named.name}'`,
          named.value.line,
          named.value.column,
        );
      }
      given.set(named.name, this.evaluate(named.value, scope, this.lenient));
    }
    for (const param of macro.params) {
      const value = given.has(param.name)
        ? given.get(param.name)
        : param.fallback === null
          ? null
          : this.evaluate(param.fallback, body, this.lenient);
      body.vars.set(param.name, value);
    }
    const parts: OutputPart[] = [];
    this.macroDepth += 1;
    try {
      this.renderInto(macro.body, body, parts, false, macro);
    } finally {
      this.macroDepth -= 1;
    }
    return parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');
  }

  private call(expr: Extract<Expression, { kind: 'call' }>, scope: Scope): unknown {
    const macro = this.macros.get(expr.name);
    if (macro !== undefined) return this.callMacro(macro, expr, scope);
    switch (expr.name) {
      case 'now':
        if (!this.options.now) throw new EvaluationFailure('now() is not available here', expr.line, expr.column);
        return this.options.now;
      case 'uuid':
      case 'id':
      case 'randomInt': {
        const random = this.options.random;
        if (random === undefined) throw new EvaluationFailure(`${expr.name}() is not available here`, expr.line, expr.column);
        if (expr.name === 'uuid') return randomUuid(random);
        if (expr.name === 'id') return randomId(random);
        return this.guard(expr, () => randomInt(this.arguments(expr.args, expr.named, scope), random));
      }
      case 'secret': {
        if (this.options.secrets.mode !== 'resolve') throw new EvaluationFailure(SECRET_ELSEWHERE, expr.line, expr.column);
        const name = this.evaluate(
          expr.args[0] ?? { kind: 'literal', value: null, line: expr.line, column: expr.column },
          scope,
          false,
        );
        if (typeof name !== 'string' || name === '')
          throw new EvaluationFailure('secret() needs a secret name', expr.line, expr.column);
        const value = this.options.secrets.resolve(name);
        // The name is what the flow author wrote; the value never appears in a message.
        if (value === undefined)
          throw new EvaluationFailure(`the secret '${name}' is not defined on this worker`, expr.line, expr.column);
        return value;
      }
      case 'read':
      case 'fileSize':
      case 'fileExists':
      case 'isFileEmpty': {
        const policy = this.options.secrets;
        if (policy.mode !== 'resolve') throw new EvaluationFailure(resolvedElsewhere(expr.name), expr.line, expr.column);
        const uri = this.evaluate(
          expr.args[0] ?? { kind: 'literal', value: null, line: expr.line, column: expr.column },
          scope,
          false,
        );
        if (typeof uri !== 'string') {
          throw new EvaluationFailure(`${expr.name}() needs a kestra:/// URI`, expr.line, expr.column);
        }
        if (!policy.files) {
          throw new EvaluationFailure(
            `${expr.name}() needs internal storage, and this worker has none configured`,
            expr.line,
            expr.column,
          );
        }
        try {
          return policy.files(expr.name, uri);
        } catch (error) {
          const reason = error instanceof Error ? error.message : 'the file could not be read';
          throw new EvaluationFailure(`${expr.name}(): ${reason}`, expr.line, expr.column);
        }
      }
      case 'fileURI': {
        const path = this.evaluate(
          expr.args[0] ?? { kind: 'literal', value: null, line: expr.line, column: expr.column },
          scope,
          false,
        );
        if (typeof path !== 'string' || path === '') {
          throw new EvaluationFailure('fileURI() needs the path of a namespace file', expr.line, expr.column);
        }
        return this.namespaceFileUri(path, expr);
      }
      case 'range':
        return this.guard(expr, () => range(this.arguments(expr.args, expr.named, scope), this.budget));
      case 'max':
        return this.guard(expr, () => extremum(this.arguments(expr.args, expr.named, scope), Math.max, 'max', this.budget));
      case 'min':
        return this.guard(expr, () => extremum(this.arguments(expr.args, expr.named, scope), Math.min, 'min', this.budget));
      case 'json':
      case 'fromJson':
        return this.guard(expr, () => parseJson(this.arguments(expr.args, expr.named, scope), expr.name, this.budget));
      case 'yaml':
        return this.guard(expr, () => parseYamlText(this.arguments(expr.args, expr.named, scope), this.budget));
      case 'printContext':
      case 'fetchContext':
        return this.options.context;
      case 'currentEachOutput':
        return this.guard(expr, () => currentEachOutput(this.arguments(expr.args, expr.named, scope), this.options.context));
      case 'render':
      case 'renderOnce':
        return this.renderAgain(expr, scope);
      default:
        throw new EvaluationFailure(`unknown function '${expr.name}'`, expr.line, expr.column);
    }
  }

  /** A namespace file's URI, `kestra:///<flow namespace as folders>/_files/<path>`. */
  private namespaceFileUri(path: string, at: Position): string {
    const flow = this.options.context['flow'];
    const namespace = flow !== null && typeof flow === 'object' ? (flow as Record<string, unknown>)['namespace'] : undefined;
    if (typeof namespace !== 'string' || namespace === '') {
      throw new EvaluationFailure(
        "a namespace file path needs the flow's namespace, which is not known here",
        at.line,
        at.column,
      );
    }
    const segments = path.replace(/^\/+/, '').split('/');
    if (segments.some((segment) => segment === '' || segment === '.' || segment === '..' || segment.includes('\\'))) {
      throw new EvaluationFailure(
        `'${path.slice(0, 80)}' is not a namespace file path (relative, without empty, '.' or '..' segments)`,
        at.line,
        at.column,
      );
    }
    const encoded = [...namespace.split('.'), '_files', ...segments].map((segment) =>
      encodeURIComponent(segment).replace(/%3A/g, ':').replace(/%40/g, '@'),
    );
    return `kestra:///${encoded.join('/')}`;
  }

  /**
   * The source the worker gets for a segment that calls a file function: each such
   * call's argument evaluated here (it reads the execution context) and written as a
   * URI literal; around the calls only literals and filters, which the worker can
   * evaluate without the context.
   */
  private workerSource(expr: Expression, scope: Scope, fn: FileFunction): string {
    const source = (item: Expression): string => this.workerSource(item, scope, fn);
    switch (expr.kind) {
      case 'literal':
        return literalSource(expr.value, expr);
      case 'negate':
        if (expr.operand.kind === 'literal' && typeof expr.operand.value === 'number') return `-${expr.operand.value}`;
        break;
      case 'list':
        return `[${expr.items.map(source).join(', ')}]`;
      case 'call':
        if (FILE_FUNCTION_NAMES.has(expr.name)) {
          if (expr.args.length !== 1 || expr.named.length > 0) {
            throw new EvaluationFailure(`${expr.name}() takes one argument, a kestra:/// URI`, expr.line, expr.column);
          }
          const given = this.evaluate(expr.args[0], scope, this.lenient);
          // Kestra reads a path that is not a URI as a file of the flow's namespace.
          const uri =
            typeof given === 'string' && !given.startsWith('kestra://') && given !== ''
              ? this.namespaceFileUri(given, expr)
              : given;
          if (typeof uri !== 'string' || !uri.startsWith('kestra:///')) {
            throw new EvaluationFailure(
              `${expr.name}() needs a kestra:/// URI or a namespace file path, got ${typeof uri === 'string' ? JSON.stringify(uri.slice(0, 80)) : typeName(uri)}`,
              expr.line,
              expr.column,
            );
          }
          return `${expr.name}(${literalSource(uri, expr)})`;
        }
        throw new EvaluationFailure(
          `a {{ }} segment that calls ${fn}() cannot call ${expr.name}(); compute that value in a separate segment`,
          expr.line,
          expr.column,
        );
      case 'binary':
        if (PRINTABLE_OPERATORS.has(expr.operator)) return `(${source(expr.left)} ${expr.operator} ${source(expr.right)})`;
        break;
      case 'compare':
        return `(${[source(expr.first), ...expr.rest.map((r) => `${r.operator} ${source(r.operand)}`)].join(' ')})`;
      case 'not':
        return `(not ${source(expr.operand)})`;
      case 'filter': {
        const args = [...expr.args.map(source), ...expr.named.map((named) => `${named.name}=${source(named.value)}`)];
        return `${source(expr.input)} | ${expr.name}${args.length > 0 ? `(${args.join(', ')})` : ''}`;
      }
      default:
        break;
    }
    throw new EvaluationFailure(
      `a {{ }} segment that calls ${fn}() is evaluated on the worker without the execution context: besides that call it may hold literals, filters and operators only; compute the rest in a separate segment`,
      expr.line,
      expr.column,
    );
  }

  /**
   * Kestra's `render(text)`: renders text held in a variable (an input or output that
   * itself holds an expression) against the same context, within the same budget.
   * Nested render() calls stop at MAX_RENDER_DEPTH (a value that renders itself).
   */
  private renderAgain(expr: Extract<Expression, { kind: 'call' }>, scope: Scope): unknown {
    const a = this.arguments(expr.args, expr.named, scope);
    const toRender = a.named.has('toRender') ? a.named.get('toRender') : a.args[0];
    if (typeof toRender !== 'string') return toRender ?? null;
    // Kestra's render() renders again while the result still holds an expression (recursive, the
    // default); renderOnce() and recursive=false render once.
    const recursiveArg = a.named.has('recursive') ? a.named.get('recursive') : a.args[1];
    if (recursiveArg !== undefined && recursiveArg !== null && typeof recursiveArg !== 'boolean') {
      throw new EvaluationFailure("render()'s recursive argument must be true or false", expr.line, expr.column);
    }
    const recursive = expr.name === 'render' && recursiveArg !== false;
    let text = toRender;
    for (let round = 0; ; round++) {
      if (this.depth + round >= MAX_RENDER_DEPTH) {
        throw new EvaluationFailure(`render() nests more than ${MAX_RENDER_DEPTH} levels`, expr.line, expr.column);
      }
      const rendered = this.renderOnce(text, expr, round);
      if (!recursive || rendered === text || !hasExpressionText(rendered)) return rendered;
      text = rendered;
    }
  }

  private renderOnce(text: string, expr: Position, round: number): string {
    try {
      const statements = parseTemplate(text);
      const inner = new Evaluation({ ...this.options, secrets: { mode: 'refuse' } }, this.depth + round + 1);
      return inner
        .render(statements)
        .map((part) => (part.kind === 'text' ? part.text : ''))
        .join('');
    } catch (error) {
      if (error instanceof EvaluationFailure) throw new EvaluationFailure(`render(): ${error.reason}`, expr.line, expr.column);
      throw error;
    }
  }

  private arguments(args: readonly Expression[], named: readonly { name: string; value: Expression }[], scope: Scope): Arguments {
    return {
      args: args.map((a) => this.evaluate(a, scope, false)),
      named: new Map(named.map((n) => [n.name, this.evaluate(n.value, scope, false)])),
    };
  }

  private guard<T>(at: Position, run: () => T): T {
    try {
      return run();
    } catch (error) {
      if (error instanceof BuiltinError) throw new EvaluationFailure(error.message, at.line, at.column);
      throw error;
    }
  }
}

function arithmetic(operator: string, left: unknown, right: unknown, at: Position): unknown {
  if (typeof left !== 'number' || typeof right !== 'number') {
    const hint = operator === '+' && (typeof left === 'string' || typeof right === 'string') ? "; use '~' to join text" : '';
    throw new EvaluationFailure(
      `'${operator}' needs numbers, got ${typeName(left)} and ${typeName(right)}${hint}`,
      at.line,
      at.column,
    );
  }
  if ((operator === '/' || operator === '//' || operator === '%') && right === 0)
    throw new EvaluationFailure('division by zero', at.line, at.column);
  switch (operator) {
    case '+':
      return left + right;
    case '-':
      return left - right;
    case '*':
      return left * right;
    case '/':
      // Pebble divides two whole numbers as Java longs: 7 / 2 is 3.
      return Number.isInteger(left) && Number.isInteger(right) ? Math.trunc(left / right) : left / right;
    case '//':
      return Math.floor(left / right);
    case '%':
      return left % right;
    default:
      return left ** right;
  }
}

function compare(operator: CompareOperator, left: unknown, right: unknown, at: Position, budget: Budget): boolean {
  switch (operator) {
    case '==':
    case '===':
      return dataEquals(left, right, budget);
    case '!=':
    case '!==':
      return !dataEquals(left, right, budget);
  }
  const comparable =
    (typeof left === 'number' && typeof right === 'number') ||
    (typeof left === 'string' && typeof right === 'string') ||
    (left instanceof Date && right instanceof Date);
  if (!comparable)
    throw new EvaluationFailure(`'${operator}' cannot compare ${typeName(left)} with ${typeName(right)}`, at.line, at.column);
  const a = left instanceof Date ? left.getTime() : (left as number | string);
  const b = right instanceof Date ? right.getTime() : (right as number | string);
  switch (operator) {
    case '<':
      return a < b;
    case '>':
      return a > b;
    case '<=':
      return a <= b;
    default:
      return a >= b;
  }
}

function rootOf(expr: Expression): Position {
  return expr.kind === 'member' ? rootOf(expr.target) : expr;
}

/** `inputs.region`, `outputs['my-task'].vars`: the path as a flow author reads it. */
function describe(expr: Expression): string {
  if (expr.kind === 'name') return expr.name;
  if (expr.kind === 'member') {
    const key = expr.key;
    if (key.kind === 'literal' && typeof key.value === 'string') {
      return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key.value)
        ? `${describe(expr.target)}.${key.value}`
        : `${describe(expr.target)}['${key.value}']`;
    }
    if (key.kind === 'literal' && typeof key.value === 'number') return `${describe(expr.target)}[${key.value}]`;
    return `${describe(expr.target)}[${key.kind === 'name' ? key.name : '...'}]`;
  }
  return 'the value';
}

function children(expr: Expression): Expression[] {
  switch (expr.kind) {
    case 'literal':
    case 'name':
      return [];
    case 'member':
      return [expr.target, expr.key];
    case 'list':
      return [...expr.items];
    case 'map':
      return expr.entries.flatMap((e) => [e.key, e.value]);
    case 'call':
      return [...expr.args, ...expr.named.map((n) => n.value)];
    case 'filter':
      return [expr.input, ...expr.args, ...expr.named.map((n) => n.value)];
    case 'test':
      return [expr.input, ...expr.args];
    case 'not':
    case 'negate':
    case 'plus':
      return [expr.operand];
    case 'binary':
      return [expr.left, expr.right];
    case 'compare':
      return [expr.first, ...expr.rest.map((r) => r.operand)];
    case 'conditional':
      return expr.otherwise === null ? [expr.test, expr.then] : [expr.test, expr.then, expr.otherwise];
  }
}

export function containsSecretCall(expr: Expression): boolean {
  return (expr.kind === 'call' && expr.name === 'secret') || children(expr).some(containsSecretCall);
}

/** A call the worker resolves: secret() or a file function. */
function containsWorkerCall(expr: Expression): boolean {
  return (
    (expr.kind === 'call' && (expr.name === 'secret' || FILE_FUNCTION_NAMES.has(expr.name))) ||
    children(expr).some(containsWorkerCall)
  );
}

function firstFileCall(expr: Expression): Extract<Expression, { kind: 'call' }> | undefined {
  if (expr.kind === 'call' && FILE_FUNCTION_NAMES.has(expr.name)) return expr;
  for (const child of children(expr)) {
    const found = firstFileCall(child);
    if (found) return found;
  }
  return undefined;
}

/** The file function calls with a literal URI in one expression (what the worker fetches before rendering). */
export function fileCallsOf(expr: Expression): FileCall[] {
  const calls: FileCall[] = [];
  const visit = (node: Expression): void => {
    if (node.kind === 'call' && FILE_FUNCTION_NAMES.has(node.name)) {
      const arg = node.args[0];
      if (arg?.kind === 'literal' && typeof arg.value === 'string')
        calls.push({ name: node.name as FileFunction, uri: arg.value });
    }
    children(node).forEach(visit);
  };
  visit(expr);
  return calls;
}

/** A literal as template source: strings single-quoted with their quotes, backslashes and line breaks escaped. */
function literalSource(value: string | number | boolean | null, at: Position): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean' || typeof value === 'number') {
    if (typeof value === 'number' && !Number.isFinite(value)) {
      throw new EvaluationFailure('a number that is not finite cannot be sent to the worker', at.line, at.column);
    }
    return String(value);
  }
  const escaped = value
    .replace(/\\/g, '\\\\')
    .replace(/'/g, "\\'")
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t');
  return `'${escaped}'`;
}

/**
 * A kept segment is evaluated on the worker without the execution context or a
 * clock, so it may use literals, filters and secret() only; refuse anything else now,
 * on the executor, where the error names the task property.
 */
function assertWorkerEvaluable(expr: Expression): void {
  if (expr.kind === 'name') {
    throw new EvaluationFailure(
      `a {{ }} segment that calls secret() is evaluated on the worker without the execution context, so it cannot use '${expr.name}'; compute that value in a separate segment`,
      expr.line,
      expr.column,
    );
  }
  if (expr.kind === 'call' && expr.name !== 'secret') {
    throw new EvaluationFailure(`a {{ }} segment that calls secret() cannot call ${expr.name}()`, expr.line, expr.column);
  }
  children(expr).forEach(assertWorkerEvaluable);
}
