import { randomUUID } from 'node:crypto';
import type { HttpRequest } from './http-types';

const CORRELATION_HEADER = 'x-correlation-id';

const drawn = new WeakMap<HttpRequest, string>();

/**
 * The caller's correlation id (a short safe token), or a new one, the same for
 * the whole request; carried on every queue message the request causes and on its audit entry.
 */
export function correlationIdOf(request: HttpRequest): string {
  const given = request.headers[CORRELATION_HEADER];
  if (typeof given === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(given)) return given;
  let id = drawn.get(request);
  if (id === undefined) {
    id = randomUUID();
    drawn.set(request, id);
  }
  return id;
}
