import type { IncomingMessage, ServerResponse } from 'node:http';

/** Methods that only read: a UI or a `?wait` client polls them, so one line each would drown the log. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The level of a request's access log line: a read that succeeded is `debug`,
 * a failure is `error` (server) or `warn` (client), anything that changes
 * something is `info`.
 */
export function requestLogLevel(
  request: IncomingMessage,
  response: ServerResponse,
  error?: Error,
): 'debug' | 'info' | 'warn' | 'error' {
  if (error || response.statusCode >= 500) return 'error';
  if (response.statusCode >= 400) return 'warn';
  return READS.has(request.method ?? '') ? 'debug' : 'info';
}
