import { decideAccess, mayGrant, namespaceWithin, type AccessSubject } from './access-decision';
import { allPermissions, holderOf, type Permission, permissionName, TENANT_ROLES, type TenantRole } from './permissions';

const token = (role: TenantRole, namespace: string | null = null): AccessSubject => ({
  instanceAdmin: false,
  grants: [{ tenantId: 'main', role, namespace }],
});
const instanceAdmin: AccessSubject = { instanceAdmin: true, grants: [] };

describe('the permission table', () => {
  it('lets a viewer read every tenant resource and write none', () => {
    for (const permission of allPermissions()) {
      const holder = holderOf(permission);
      if (holder === 'instance-admin') continue;
      const decision = decideAccess(token('viewer'), permission, { tenantId: 'main' });
      expect({ permission: permissionName(permission), allowed: decision.allowed }).toEqual({
        permission: permissionName(permission),
        allowed: holder === 'viewer',
      });
    }
  });

  it('gives a developer flows and executions but not API tokens or the audit log', () => {
    const allowed = (permission: Permission) => decideAccess(token('developer'), permission, { tenantId: 'main' }).allowed;
    expect(allowed({ resource: 'flow', action: 'write' })).toBe(true);
    expect(allowed({ resource: 'execution', action: 'write' })).toBe(true);
    expect(allowed({ resource: 'api-token', action: 'write' })).toBe(false);
    expect(allowed({ resource: 'audit-log', action: 'read' })).toBe(false);
  });

  it('keeps instance resources to instance admins, whatever the tenant role', () => {
    for (const role of TENANT_ROLES) {
      const decision = decideAccess(token(role), { resource: 'worker-topology', action: 'read' }, {});
      expect(decision).toEqual({
        allowed: false,
        missing: 'worker-topology:read',
        message: "Missing permission 'worker-topology:read': only an instance admin holds it",
      });
    }
    expect(decideAccess(instanceAdmin, { resource: 'tenant', action: 'write' }, {})).toEqual({
      allowed: true,
      namespacePrefix: null,
    });
  });

  it('names the missing permission, the tenant and both roles when a role is too weak', () => {
    expect(decideAccess(token('viewer'), { resource: 'flow', action: 'write' }, { tenantId: 'main' })).toEqual({
      allowed: false,
      missing: 'flow:write',
      message: "Missing permission 'flow:write' on tenant 'main': it needs the role developer or above, this one is viewer",
    });
  });

  it('refuses another tenant even to a tenant admin, and lets an instance admin into every tenant', () => {
    const decision = decideAccess(token('admin'), { resource: 'flow', action: 'read' }, { tenantId: 'other' });
    expect(decision).toMatchObject({ allowed: false, message: "Missing permission 'flow:read' on tenant 'other'" });
    expect(decideAccess(instanceAdmin, { resource: 'flow', action: 'write' }, { tenantId: 'other' }).allowed).toBe(true);
  });
});

describe('a namespace-bound grant', () => {
  const bound = token('developer', 'company.team');
  const run: Permission = { resource: 'execution', action: 'write' };

  it('acts inside its prefix and its children only', () => {
    expect(decideAccess(bound, run, { tenantId: 'main', namespace: 'company.team' })).toEqual({
      allowed: true,
      namespacePrefix: 'company.team',
    });
    expect(decideAccess(bound, run, { tenantId: 'main', namespace: 'company.team.etl' }).allowed).toBe(true);
    expect(decideAccess(bound, run, { tenantId: 'main', namespace: 'company.teammates' })).toMatchObject({
      allowed: false,
      message: "Missing permission 'execution:write' on namespace 'company.teammates': this one is bound to 'company.team'",
    });
    expect(decideAccess(bound, run, { tenantId: 'main', namespace: 'company' }).allowed).toBe(false);
  });

  it('is refused on a tenant-wide route, and handed its prefix where the handler narrows', () => {
    expect(decideAccess(bound, run, { tenantId: 'main' })).toMatchObject({
      allowed: false,
      message: "Missing permission 'execution:write' on the whole tenant 'main': this one is bound to namespace 'company.team'",
    });
    expect(decideAccess(bound, { resource: 'flow', action: 'read' }, { tenantId: 'main', handlerNarrows: true })).toEqual({
      allowed: true,
      namespacePrefix: 'company.team',
    });
  });

  it('reads namespaces by segments', () => {
    expect(namespaceWithin('a.b.c', 'a.b')).toBe(true);
    expect(namespaceWithin('a.b', 'a.b')).toBe(true);
    expect(namespaceWithin('a.bc', 'a.b')).toBe(false);
    expect(namespaceWithin('a', 'a.b')).toBe(false);
  });
});

describe('handing out grants', () => {
  it('never gives more than the giver holds, in role or in namespace', () => {
    const admin = token('admin');
    expect(mayGrant(admin, { tenantId: 'main', role: 'admin', namespace: null })).toBe(true);
    expect(mayGrant(admin, { tenantId: 'other', role: 'viewer', namespace: null })).toBe(false);
    expect(mayGrant(token('developer'), { tenantId: 'main', role: 'admin', namespace: null })).toBe(false);
    const boundAdmin = token('admin', 'company.team');
    expect(mayGrant(boundAdmin, { tenantId: 'main', role: 'viewer', namespace: 'company.team.etl' })).toBe(true);
    expect(mayGrant(boundAdmin, { tenantId: 'main', role: 'viewer', namespace: null })).toBe(false);
    expect(mayGrant(boundAdmin, { tenantId: 'main', role: 'viewer', namespace: 'company' })).toBe(false);
    expect(mayGrant(instanceAdmin, { tenantId: 'any', role: 'admin', namespace: null })).toBe(true);
  });
});
