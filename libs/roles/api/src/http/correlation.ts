import { randomUUID } from 'node:crypto';
import type { HttpRequest } from './http-types';

const CORRELATION_HEADER = 'x-correlation-id';

/** The caller's correlation id (a short safe token), or a new one; carried on every queue message the request causes. */
export function correlationIdOf(request: HttpRequest): string {
  const given = request.headers[CORRELATION_HEADER];
  return typeof given === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(given) ? given : randomUUID();
}
