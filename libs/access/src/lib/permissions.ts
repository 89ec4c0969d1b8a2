// The one permission table of the API: every route names a (resource, action)
// pair from here, and the roles that hold it are decided here only.

/** The roles a token or user holds in a tenant, weakest first. */
export const TENANT_ROLES = ['viewer', 'developer', 'admin'] as const;
export type TenantRole = (typeof TENANT_ROLES)[number];

/** Who may hold an action: a tenant role (and every stronger one), or only an instance admin. */
export type Holder = TenantRole | 'instance-admin';

/**
 * Resource x action -> the weakest holder. Tenant resources live under
 * `/api/v1/{tenant}/...`; the `instance-admin` ones under `/api/v1/instance/...`.
 * `write` is every change: for executions it is start, kill, resume, restart and replay.
 */
export const PERMISSIONS = {
  flow: { read: 'viewer', write: 'developer' },
  execution: { read: 'viewer', write: 'developer' },
  log: { read: 'viewer' },
  namespace: { read: 'viewer' },
  trigger: { read: 'viewer', write: 'developer' },
  file: { read: 'viewer', write: 'developer' },
  dashboard: { read: 'viewer', write: 'developer' },
  'api-token': { read: 'admin', write: 'admin' },
  'audit-log': { read: 'admin' },
  'worker-topology': { read: 'instance-admin', write: 'instance-admin' },
  'service-instance': { read: 'instance-admin' },
  maintenance: { read: 'instance-admin', write: 'instance-admin' },
  'dead-letter': { read: 'instance-admin', write: 'instance-admin' },
  tenant: { read: 'instance-admin', write: 'instance-admin' },
  user: { read: 'instance-admin', write: 'instance-admin' },
} as const satisfies Record<string, Partial<Record<'read' | 'write', Holder>>>;

export type Resource = keyof typeof PERMISSIONS;
/** The actions the table defines for `R` (so `('log', 'write')` does not compile). */
export type ActionOf<R extends Resource> = keyof (typeof PERMISSIONS)[R] & string;
export type Action = { [R in Resource]: ActionOf<R> }[Resource];

/** A pair of the table: `{ resource: 'flow', action: 'write' }`. */
export type Permission = { [R in Resource]: { readonly resource: R; readonly action: ActionOf<R> } }[Resource];

/** `flow:write`, as a refusal names it. */
export function permissionName(permission: Permission): string {
  return `${permission.resource}:${permission.action}`;
}

/** The weakest holder of a permission, or undefined when the table does not define the pair. */
export function holderOf(permission: Permission): Holder | undefined {
  const actions = PERMISSIONS[permission.resource] as Partial<Record<string, Holder>> | undefined;
  return actions?.[permission.action];
}

export function isTenantRole(value: unknown): value is TenantRole {
  return typeof value === 'string' && (TENANT_ROLES as readonly string[]).includes(value);
}

/** True when `role` is at least as strong as `than`. */
export function roleCovers(role: TenantRole, than: TenantRole): boolean {
  return TENANT_ROLES.indexOf(role) >= TENANT_ROLES.indexOf(than);
}

/** Every pair of the table, for docs and tests. */
export function allPermissions(): Permission[] {
  return (Object.keys(PERMISSIONS) as Resource[]).flatMap((resource) =>
    Object.keys(PERMISSIONS[resource]).map((action) => ({ resource, action }) as Permission),
  );
}
