import { holderOf, type Permission, permissionName, roleCovers, type TenantRole } from './permissions';

/** A role in one tenant, optionally only on a namespace prefix (`company.team` covers `company.team.*`). */
export interface AccessGrant {
  readonly tenantId: string;
  readonly role: TenantRole;
  readonly namespace: string | null;
}

/** What a verified token or user may do: its grants, and whether it is an instance admin. */
export interface AccessSubject {
  readonly instanceAdmin: boolean;
  readonly grants: readonly AccessGrant[];
}

/**
 * Where a request acts. `tenantId` is the route's tenant (none on instance
 * routes). `namespace` is the one the request names, when the route knows it
 * before the handler runs; `handlerNarrows` says that the handler confines
 * itself to the allowed prefix (a search without a namespace filter) or checks
 * the namespace it reads later (a flow's YAML), so a namespace-bound subject may
 * pass without a namespace here.
 */
export interface AccessTarget {
  readonly tenantId?: string;
  readonly namespace?: string;
  readonly handlerNarrows?: boolean;
}

export type AccessDecision =
  | {
      readonly allowed: true;
      /** The prefix the handler must stay within, or null for the whole tenant (or instance). */
      readonly namespacePrefix: string | null;
    }
  | { readonly allowed: false; readonly missing: string; readonly message: string };

/** `namespace` is `prefix` or inside it (`a.b` is within `a`, `ab` is not). */
export function namespaceWithin(namespace: string, prefix: string): boolean {
  return namespace === prefix || namespace.startsWith(`${prefix}.`);
}

function refuse(permission: Permission, message: string): AccessDecision {
  return { allowed: false, missing: permissionName(permission), message };
}

/**
 * Decides one request. Refusals name the missing permission and the tenant or
 * namespace the request itself named, never anything stored.
 */
export function decideAccess(subject: AccessSubject, permission: Permission, target: AccessTarget): AccessDecision {
  const name = permissionName(permission);
  const holder = holderOf(permission);
  if (holder === undefined) return refuse(permission, `The permission '${name}' is not defined`);
  if (subject.instanceAdmin) return { allowed: true, namespacePrefix: null };
  if (holder === 'instance-admin') return refuse(permission, `Missing permission '${name}': only an instance admin holds it`);
  if (target.tenantId === undefined)
    return refuse(permission, `Missing permission '${name}': the route names no tenant, so only an instance admin holds it`);

  const grant = subject.grants.find((candidate) => candidate.tenantId === target.tenantId);
  if (grant === undefined) return refuse(permission, `Missing permission '${name}' on tenant '${target.tenantId}'`);
  if (!roleCovers(grant.role, holder))
    return refuse(
      permission,
      `Missing permission '${name}' on tenant '${target.tenantId}': it needs the role ${holder} or above, this one is ${grant.role}`,
    );
  if (grant.namespace === null) return { allowed: true, namespacePrefix: null };
  if (target.namespace !== undefined) {
    return namespaceWithin(target.namespace, grant.namespace)
      ? { allowed: true, namespacePrefix: grant.namespace }
      : refuse(
          permission,
          `Missing permission '${name}' on namespace '${target.namespace}': this one is bound to '${grant.namespace}'`,
        );
  }
  if (target.handlerNarrows === true) return { allowed: true, namespacePrefix: grant.namespace };
  return refuse(
    permission,
    `Missing permission '${name}' on the whole tenant '${target.tenantId}': this one is bound to namespace '${grant.namespace}'`,
  );
}

/**
 * Whether `subject` may hand out `wanted` (an API token, a user's role): never
 * more than it holds itself, in role or in namespace.
 */
export function mayGrant(subject: AccessSubject, wanted: AccessGrant): boolean {
  if (subject.instanceAdmin) return true;
  const own = subject.grants.find((grant) => grant.tenantId === wanted.tenantId);
  if (own === undefined || !roleCovers(own.role, wanted.role)) return false;
  if (own.namespace === null) return true;
  return wanted.namespace !== null && namespaceWithin(wanted.namespace, own.namespace);
}
