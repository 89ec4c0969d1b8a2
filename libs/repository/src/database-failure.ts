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
