import { ExpressionError } from '../lib/expression-error';

/** The ExpressionError that rendering `template` throws; fails the spec when it renders, or throws anything else. */
export function expressionFailure(render: (template: string) => unknown, template: string): ExpressionError {
  try {
    render(template);
  } catch (error) {
    if (error instanceof ExpressionError) return error;
    throw error;
  }
  throw new Error(`'${template}' rendered without an error`);
}
