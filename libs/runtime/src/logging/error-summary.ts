const MAX_REASON_LENGTH = 300;

/**
 * What a log line says of an error: its kind and the first line of its
 * message, cut to a few hundred characters. Never its stack trace, nor the
 * further lines where drivers put query text or source excerpts.
 */
export function errorSummary(error: unknown): { readonly error: string; readonly reason: string } {
  const name = error instanceof Error ? error.name : typeof error;
  const message = error instanceof Error ? error.message : String(error);
  const line = message.split('\n')[0];
  return { error: name, reason: line.length > MAX_REASON_LENGTH ? `${line.slice(0, MAX_REASON_LENGTH)}…` : line };
}
