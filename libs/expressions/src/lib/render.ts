/**
 * The public rendering functions. Each call parses, evaluates and forgets: no cache,
 * no clock (`options.now` is what now() returns), no I/O.
 *
 * Two kinds of result:
 * - worker text (renderTemplate, renderValue): what the executor sends to a worker.
 *   A `{{ }}` segment that calls secret() is kept as written, and any `{{`, `{%` or
 *   `{#` that came out of rendering is written as `{{ '{{' }}`, so that the worker's
 *   renderSecrets turns the text into the final string and nothing a value carries
 *   (a webhook body, an input) can become a secret() call on the worker. Text without
 *   those delimiters (nearly all of it) is already final.
 * - final values (renderFinal, evaluateCondition, renderTag, renderList): what the executor needs
 *   itself; secret() is refused there, since secrets never reach the executor.
 */
import type { RandomSource } from './random';
import { Budget, LimitExceeded } from './budget';
import { EvaluationFailure, ExpressionError } from './expression-error';
import { Evaluation, EvaluationOptions, FileCall, FileLookup, OutputPart, fileCallsOf } from './evaluator';
import { ExpressionLimits, limitsWith } from './limits';
import { Statement, parseTemplate, scanSegments, segmentAt } from './syntax';
import { escapeForWorker, isDataMap, isRenderedTextTruthy, typeName } from './values';

/** The names a template reads: flow, execution, inputs, vars, outputs, taskrun, parents, trigger, labels. */
export interface ExpressionContext {
  [name: string]: unknown;
}

export interface RenderOptions {
  /** What now() returns: rendering never reads the clock. */
  now: Date;
  /**
   * Where uuid(), id() and randomInt() draw from: rendering draws no randomness
   * of its own, the caller gives it. Without it those functions fail.
   */
  random?: RandomSource;
  /** Overrides of EXPRESSION_LIMITS for this rendering. */
  limits?: Partial<ExpressionLimits>;
}

/** The `random` option of a rendering, when given. */
function randomOf(options: { readonly random?: RandomSource }): { random?: RandomSource } {
  return options.random !== undefined ? { random: options.random } : {};
}

/** Options of the worker's secret pass, which has no clock. */
export interface SecretRenderOptions {
  /** Overrides of EXPRESSION_LIMITS for this rendering. */
  limits?: Partial<ExpressionLimits>;
  /** What read(), fileSize(), fileExists() and isFileEmpty() give (see fileCallsIn); absent: they fail. */
  files?: FileLookup;
}

/** Resolves a secret by name on the worker; undefined when the worker has no such secret. */
export type SecretResolver = (name: string) => string | undefined;

/** True when the text contains `{{`, `{%` or a `{#` comment; anything else renders to itself. */
export function hasExpression(value: string): boolean {
  return value.includes('{{') || value.includes('{%') || value.includes('{#');
}

/** Renders a template to worker text (see the top of this file). */
export function renderTemplate(template: string, context: ExpressionContext, options: RenderOptions): string {
  return workerText(template, context, options, budgetOf(options));
}

/**
 * Renders every string inside a value (lists and maps, recursively) with
 * renderTemplate; other values are returned unchanged. A string stays a string, even
 * `"{{ inputs.count }}"`, as in Kestra: a task property's type is what its author
 * wrote, and the plugin converts it. Use renderList where a list is needed.
 * Map keys are rendered too, as final text (a key cannot hold a secret).
 */
export function renderValue(value: unknown, context: ExpressionContext, options: RenderOptions): unknown {
  // One budget for the whole value: its limits bound the rendering, not each string.
  const budget = budgetOf(options);
  const each = (item: unknown): unknown => {
    if (typeof item === 'string') return workerText(item, context, options, budget);
    if (Array.isArray(item)) return item.map(each);
    if (isDataMap(item))
      return Object.fromEntries(
        Object.entries(item).map(([key, child]) => [finalText(key, context, options, budget), each(child)]),
      );
    return item;
  };
  return each(value);
}

/** Renders a condition and applies Kestra's truthiness: "", "false", "0", "-0" and null are false. */
export function evaluateCondition(template: string, context: ExpressionContext, options: RenderOptions): boolean {
  return isRenderedTextTruthy(renderFinal(template, context, options));
}

/**
 * Renders a worker-selector tag. null when it renders to blank, including when it reads
 * something absent (an optional input that was not given): such a tag is dropped.
 */
export function renderTag(template: string, context: ExpressionContext, options: RenderOptions): string | null {
  const text = hasExpression(template)
    ? render(template, {
        context,
        now: options.now,
        ...randomOf(options),
        secrets: { mode: 'refuse' },
        lenient: true,
        budget: budgetOf(options),
      })
    : template;
  return text.trim() === '' ? null : text;
}

/**
 * The list a ForEach iterates: a YAML list (its strings rendered), a template that
 * yields a list (`"{{ inputs.list }}"`), or text that renders to a JSON array
 * (`'["a","b"]'`, `"{{ outputs.t.vars.json }}"`). The items are final values.
 */
export function renderList(value: unknown, context: ExpressionContext, options: RenderOptions): unknown[] {
  const budget = budgetOf(options);
  if (Array.isArray(value)) return value.map((item) => renderFinalValue(item, context, options, budget));
  if (typeof value !== 'string') {
    throw new ExpressionError(`expects a list or a template that renders to one, got ${typeName(value)}`, String(value));
  }
  return guarded(value, () => {
    const statements = hasExpression(value) ? parseTemplate(value) : [];
    const single = singleOutput(statements);
    const options_: EvaluationOptions = { context, now: options.now, ...randomOf(options), secrets: { mode: 'refuse' }, budget };
    const result: unknown = single
      ? new Evaluation(options_).value(single.expression)
      : hasExpression(value)
        ? joinText(new Evaluation(options_).render(statements))
        : value;
    if (Array.isArray(result)) return result;
    if (typeof result === 'string') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(result);
      } catch {
        parsed = undefined;
      }
      if (Array.isArray(parsed)) {
        budget.listsWithin(parsed, 'the JSON array');
        return parsed;
      }
    }
    throw new EvaluationFailure(
      `must render to a list or a JSON array, got ${typeof result === 'string' ? 'text' : typeName(result)}`,
      single?.line ?? 1,
      single?.column ?? 1,
    );
  });
}

/**
 * The worker's pass over worker text: resolves the kept `{{ secret('NAME') }}`
 * segments with the worker's own resolver and restores escaped delimiters. Fails on a
 * secret the resolver does not know, naming it (never printing a value).
 */
export function renderSecrets(template: string, resolve: SecretResolver, options: SecretRenderOptions = {}): string {
  return secretsResolved(template, resolve, budgetOf(options), options.files);
}

/**
 * The file function calls (read(), fileSize(), fileExists(), isFileEmpty()) worker text
 * makes, each with its URI: the worker fetches them before renderSecrets, which is
 * synchronous. Text that does not parse has none (renderSecrets reports it).
 */
export function fileCallsIn(template: string): FileCall[] {
  if (!hasExpression(template)) return [];
  let statements: readonly Statement[];
  try {
    statements = parseTemplate(template);
  } catch {
    return [];
  }
  const calls: FileCall[] = [];
  const visit = (list: readonly Statement[]): void => {
    for (const statement of list) {
      if (statement.kind === 'output') calls.push(...fileCallsOf(statement.expression));
      else if (statement.kind === 'if') {
        visit(statement.then);
        visit(statement.otherwise);
      } else if (statement.kind === 'for') {
        visit(statement.body);
        visit(statement.otherwise ?? []);
      } else if (statement.kind === 'set') visit(statement.body ?? []);
    }
  };
  visit(statements);
  return calls;
}

/** renderSecrets over every string in a value (lists and maps, recursively), within one budget. */
export function renderSecretsInValue(value: unknown, resolve: SecretResolver, options: SecretRenderOptions = {}): unknown {
  const budget = budgetOf(options);
  const each = (item: unknown): unknown => {
    if (typeof item === 'string') return secretsResolved(item, resolve, budget, options.files);
    if (Array.isArray(item)) return item.map(each);
    if (isDataMap(item)) return Object.fromEntries(Object.entries(item).map(([key, child]) => [key, each(child)]));
    return item;
  };
  return each(value);
}

/**
 * Final text for a value the executor uses itself (a Switch value, a label, a subflow
 * input, a flow output): nothing escaped, nothing kept; secret() is refused.
 */
export function renderFinal(template: string, context: ExpressionContext, options: RenderOptions): string {
  return finalText(template, context, options, budgetOf(options));
}

// ---- internals ----------------------------------------------------------------

function budgetOf(options: { limits?: Partial<ExpressionLimits> }): Budget {
  return new Budget(limitsWith(options.limits));
}

function workerText(template: string, context: ExpressionContext, options: RenderOptions, budget: Budget): string {
  if (!hasExpression(template)) return template;
  return guarded(template, () => {
    const parts = new Evaluation({ context, now: options.now, ...randomOf(options), secrets: { mode: 'keep' }, budget }).render(
      parseTemplate(template),
    );
    return toWorkerText(template, parts);
  });
}

function finalText(template: string, context: ExpressionContext, options: RenderOptions, budget: Budget): string {
  return hasExpression(template)
    ? render(template, { context, now: options.now, ...randomOf(options), secrets: { mode: 'refuse' }, budget })
    : template;
}

function secretsResolved(template: string, resolve: SecretResolver, budget: Budget, files?: FileLookup): string {
  if (!hasExpression(template)) return template;
  return guarded(template, () =>
    joinText(
      new Evaluation({ context: {}, secrets: { mode: 'resolve', resolve, ...(files ? { files } : {}) }, budget }).render(
        parseTemplate(template),
      ),
    ),
  );
}

function renderFinalValue(value: unknown, context: ExpressionContext, options: RenderOptions, budget: Budget): unknown {
  if (typeof value === 'string') return finalText(value, context, options, budget);
  if (Array.isArray(value)) return value.map((item) => renderFinalValue(item, context, options, budget));
  if (isDataMap(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        finalText(key, context, options, budget),
        renderFinalValue(item, context, options, budget),
      ]),
    );
  }
  return value;
}

function render(template: string, options: EvaluationOptions): string {
  return guarded(template, () => joinText(new Evaluation(options).render(parseTemplate(template))));
}

function joinText(parts: readonly OutputPart[]): string {
  return parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');
}

/** The template is one `{{ expr }}` (whitespace around it aside). */
function singleOutput(statements: readonly Statement[]): Extract<Statement, { kind: 'output' }> | undefined {
  const meaningful = statements.filter((s) => !(s.kind === 'text' && s.text.trim() === ''));
  return meaningful.length === 1 && meaningful[0].kind === 'output' ? meaningful[0] : undefined;
}

function toWorkerText(template: string, parts: readonly OutputPart[]): string {
  const segments = new Map(scanSegments(template).map((s) => [s.start, s]));
  let out = '';
  let pending = '';
  for (const part of parts) {
    if (part.kind === 'text') {
      pending += part.text;
      continue;
    }
    out += escapeForWorker(pending, true);
    pending = '';
    const segment = segments.get(part.offset);
    const source = part.source ?? (segment ? template.slice(segment.start, segment.end) : '');
    // Whitespace control was applied here already; the worker must not trim again.
    out += source.replace(/^\{\{-/, '{{ ').replace(/-\}\}$/, ' }}');
  }
  return out + escapeForWorker(pending, false);
}

/** Runs a render step and turns whatever it throws into an ExpressionError naming the segment. */
function guarded<T>(template: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof ExpressionError) throw error;
    if (error instanceof EvaluationFailure) {
      throw new ExpressionError(error.reason, segmentAt(template, error.line, error.column), error.line, error.column);
    }
    // A limit reached outside any one segment (the list a whole template rendered to).
    if (error instanceof LimitExceeded) throw new ExpressionError(error.reason, shortened(template));
    // An internal fault (a bug, a template nested too deep for the stack): the details
    // are ours, not the flow author's, and may hold values; say only where.
    throw new ExpressionError('the expression could not be evaluated', shortened(template));
  }
}

function shortened(template: string): string {
  return template.length > 200 ? `${template.slice(0, 197)}...` : template;
}
