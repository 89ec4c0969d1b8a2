/** A tenant id: what `/api/v1/{tenant}` may name once the tenant was created. */
export const TENANT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** Path segments of the API beside `{tenant}`: no tenant may take them. */
export const RESERVED_TENANT_IDS: ReadonlySet<string> = new Set(['instance', 'auth']);

export const TENANT_ID_RULE = 'must be 1 to 63 lowercase letters, digits, "_" or "-", starting with a letter or digit';
export const RESERVED_TENANT_ID_RULE = 'is reserved (instance and auth are API paths)';

/** What is wrong with a tenant id to be created, or undefined when it is a valid one. */
export function tenantIdProblem(id: unknown): string | undefined {
  if (typeof id !== 'string' || !TENANT_ID_PATTERN.test(id)) return TENANT_ID_RULE;
  if (RESERVED_TENANT_IDS.has(id)) return RESERVED_TENANT_ID_RULE;
  return undefined;
}
