export { PERMISSIONS, TENANT_ROLES, allPermissions, holderOf, isTenantRole, permissionName, roleCovers } from './lib/permissions';
export type { Action, ActionOf, Holder, Permission, Resource, TenantRole } from './lib/permissions';
export { decideAccess, mayGrant, namespaceWithin } from './lib/access-decision';
export type { AccessDecision, AccessGrant, AccessSubject, AccessTarget } from './lib/access-decision';
export { ApiTokenSecret, validateApiTokenSetup } from './lib/api-token-setup';
export type { ApiTokenSetupProblem, ApiTokenSetupResult, DeclaredApiToken } from './lib/api-token-setup';
export { PasswordSecret, validateAccessSetup } from './lib/access-setup';
export type {
  AccessSetup,
  AccessSetupPorts,
  AccessSetupResult,
  DeclaredTenant,
  DeclaredUser,
  PasswordSource,
} from './lib/access-setup';
export type { ApiTokenSetupSources, SecretFileReader } from './lib/api-token-setup';
export { RESERVED_TENANT_IDS, TENANT_ID_PATTERN, TENANT_ID_RULE, tenantIdProblem } from './lib/tenant-id';
