// The one place the state machine renders `{{ }}` templates (through
// @lanner/expressions). Everything else calls these functions, so the expression
// language can change without touching the transitions. A rendering error
// becomes a task-run failure whose message names the expression and its
// position (FLOWS.md, "Expressions").
import {
  ExpressionError,
  evaluateCondition,
  type RandomSource,
  renderList,
  renderTemplate,
  renderValue,
} from '@lanner/expressions';

export type RenderContext = Record<string, unknown>;

export interface RenderOptions {
  /** Epoch ms: what `now()` returns in a template. */
  readonly now: number;
  /** What uuid(), id() and randomInt() draw from (see `RenderEnvironment`). */
  readonly random?: RandomSource;
}

function expressionOptions(options: RenderOptions): { now: Date; random?: RandomSource } {
  return options.random !== undefined ? { now: new Date(options.now), random: options.random } : { now: new Date(options.now) };
}

/** The failure message for a template that did not render: the expression, its line and column, the reason. */
export function renderFailure(error: unknown): string {
  if (error instanceof ExpressionError) return `Cannot render ${error.message}`;
  // Anything else is a bug in a renderer; its text may carry internals, so it is not passed on.
  return 'Cannot render an expression';
}

/** A template rendered to text. Secrets stay unrendered (`{{ secret(..) }}` is kept for the worker). */
export function renderText(template: string, context: RenderContext, options: RenderOptions): string {
  return renderTemplate(template, context, expressionOptions(options));
}

/** A template rendered and read as a condition (Kestra truthiness). */
export function renderCondition(template: string, context: RenderContext, options: RenderOptions): boolean {
  return evaluateCondition(template, context, expressionOptions(options));
}

/** Any templated value: strings rendered, lists and maps rendered recursively. */
export function renderAny(value: unknown, context: RenderContext, options: RenderOptions): unknown {
  return renderValue(value, context, expressionOptions(options));
}

/** ForEach `values`: a list, or a template rendering to a list or a JSON array. */
export function renderItems(value: unknown, context: RenderContext, options: RenderOptions): unknown[] {
  return renderList(value, context, expressionOptions(options));
}
