import { DatabaseUnavailable } from './errors';

/**
 * SQLSTATE classes of failures that the same statement with the same values
 * meets again on every try: data exceptions (22: a NUL in text, an invalid
 * escape, a number out of range), integrity violations (23), syntax or access
 * rule violations (42), program limits (54: a row too large for its index) and
 * unsupported features (0A). Connection failures (08), resources (53),
 * operator intervention (57), lock and serialization conflicts (40, 55) pass.
 */
const LASTING_CLASSES = new Set(['22', '23', '42', '54', '0A']);

const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * True when the error is PostgreSQL refusing a statement for a reason a retry
 * cannot change (see LASTING_CLASSES). Reads the SQLSTATE wherever the driver
 * or Prisma's adapter put it (`code`, `originalCode`, `meta`, `cause`), a few
 * levels deep; anything without one (a network error, a timeout) is not.
 */
export function databaseRefusesForGood(error: unknown): boolean {
  const state = sqlStateOf(error, 0);
  return state !== undefined && LASTING_CLASSES.has(state.slice(0, 2));
}

function sqlStateOf(value: unknown, depth: number): string | undefined {
  if (depth > 4 || typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  for (const field of ['originalCode', 'code']) {
    const candidate = record[field];
    if (typeof candidate === 'string' && SQLSTATE.test(candidate) && !candidate.startsWith('P')) return candidate;
  }
  for (const field of ['cause', 'meta', 'driverAdapterError']) {
    const found = sqlStateOf(record[field], depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** SQLSTATE classes of a database that is down, restarting, overloaded or busy: worth waiting for. */
const PASSING_CLASSES = new Set(['08', '53', '57', '40', '55', '58']);
/** Prisma's own codes for an unreachable server, a timeout, an exhausted pool or a transaction that could not start in time. */
const PASSING_PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028']);
const PASSING_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
const PASSING_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Can't reach database server/i;

/**
 * True when the error says the database cannot be reached or is too busy right
 * now (a later try may succeed): a network error, a connection-class SQLSTATE,
 * a pool timeout, or DatabaseUnavailable from this library.
 */
export function databaseIsUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnavailable) return true;
  return anyLevel(error, 0, (record) => {
    for (const field of ['originalCode', 'code', 'errno']) {
      const code = record[field];
      if (typeof code !== 'string') continue;
      if (PASSING_NETWORK_CODES.has(code) || PASSING_PRISMA_CODES.has(code)) return true;
      if (SQLSTATE.test(code) && PASSING_CLASSES.has(code.slice(0, 2))) return true;
    }
    return typeof record['message'] === 'string' && PASSING_MESSAGES.test(record['message']);
  });
}

function anyLevel(value: unknown, depth: number, test: (record: Record<string, unknown>) => boolean): boolean {
  if (depth > 4 || typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  if (test(record)) return true;
  return ['cause', 'meta', 'driverAdapterError'].some((field) => anyLevel(record[field], depth + 1, test));
}
