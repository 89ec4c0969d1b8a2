/** Field names whose values are credentials wherever they appear in a log line. */
const SECRET_FIELD = /token|secret|password|passwd|authorization|cookie|credential/i;
export const CENSORED = '[redacted]';
const MAX_DEPTH = 8;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Returns a copy of a log object with the value of every secret-named field
 * replaced, at any depth. Only plain objects and arrays are walked: request
 * objects, errors and other class instances are left to pino's serializers and
 * redact paths, so a log call never walks a socket.
 */
export function censorSecrets<T>(value: T, depth = 0): T {
  if (depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item: unknown) => censorSecrets(item, depth + 1)) as T;
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    copy[key] = SECRET_FIELD.test(key) && field !== undefined ? CENSORED : censorSecrets(field, depth + 1);
  }
  return copy as T;
}
