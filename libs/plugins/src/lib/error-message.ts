/**
 * The message of something thrown, without its stack. Duck-typed rather than
 * `instanceof Error`: errors from Node's core (a refused connection) belong to another
 * realm under Jest's vm, and an AggregateError from a dual-stack connect has an empty
 * message but a `code`.
 */
export function errorMessage(error: unknown, fallback: string): string {
  if (typeof error === 'object' && error !== null) {
    const { message, code } = error as { message?: unknown; code?: unknown };
    if (typeof message === 'string' && message !== '') return message;
    if (typeof code === 'string' && code !== '') return code;
  }
  return fallback;
}
