/**
 * The one error this library throws. Its message names the offending expression
 * (the `{{ ... }}` or `{% ... %}` segment as written) and its 1-based position, and
 * never carries a JS stack, nunjucks internals or a rendered value: messages end up
 * in task-run logs and API responses, and rendered values may be secrets.
 */
export class ExpressionError extends Error {
  override readonly name = 'ExpressionError';

  constructor(
    /** The reason alone, without the expression and position. */
    readonly reason: string,
    /** The segment of the template the error is in, as written. */
    readonly expression: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(describe(reason, expression, line, column));
    // The stack points into this library, which tells a flow author nothing; callers
    // that log errors must not print internals either.
    this.stack = `${this.name}: ${this.message}`;
  }
}

function describe(reason: string, expression: string, line?: number, column?: number): string {
  const where = line === undefined ? '' : column === undefined ? ` (line ${line})` : ` (line ${line}, column ${column})`;
  return `${expression}${where}: ${reason}`;
}

/**
 * Raised inside the evaluator, where the segment text is not at hand; the public
 * functions turn it into an ExpressionError naming the segment.
 */
export class EvaluationFailure {
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column: number,
  ) {}
}
