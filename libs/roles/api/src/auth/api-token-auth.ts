import { DEFAULT_TENANT_ID } from '@lanner/model';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AccessSubject, TenantRole } from '@lanner/access';
import { bearerToken, hashToken, sameTokenHash } from '@lanner/auth';
import type { ApiTokenRoleName, Repositories } from '@lanner/repository';
import { errorSummary, REPOSITORIES } from '@lanner/runtime';
import { API_ROLE_OPTIONS, type ApiRoleOptions } from '../api-role.options';
import { Unauthenticated } from '../http/api-errors';
import { looksLikeJwt, UserSessions } from '../users/user-sessions';

/** Who a request acts as: a verified API token, its tenant, role and optional namespace prefix. */
export interface ApiPrincipal {
  readonly tokenId: string;
  /** The API token's name (or the username), as the audit log names the caller. */
  readonly tokenName: string;
  readonly tenantId: string;
  readonly role: TenantRole;
  /** The namespace prefix the token is bound to, or null for its whole tenant. */
  readonly namespace: string | null;
  readonly instanceAdmin: boolean;
  /** Set when a user's access JWT authenticated the request (`tokenId` is then `user:<username>`). */
  readonly userId?: string;
}

export const BOOTSTRAP_TOKEN_NAME = 'bootstrap-admin';

const ROLE_OF_STORED: Record<ApiTokenRoleName, TenantRole> = { ADMIN: 'admin', DEVELOPER: 'developer', VIEWER: 'viewer' };
const STORED_ROLE: Record<TenantRole, ApiTokenRoleName> = { admin: 'ADMIN', developer: 'DEVELOPER', viewer: 'VIEWER' };

export function storedRole(role: TenantRole): ApiTokenRoleName {
  return STORED_ROLE[role];
}

export function roleOfStored(role: ApiTokenRoleName): TenantRole {
  return ROLE_OF_STORED[role];
}

/** The principal as the permission rules (`@lanner/access`) see it. */
export function accessSubjectOf(principal: ApiPrincipal): AccessSubject {
  return {
    instanceAdmin: principal.instanceAdmin,
    grants: [{ tenantId: principal.tenantId, role: principal.role, namespace: principal.namespace }],
  };
}

/**
 * API-token authentication: tokens are opaque, stored as SHA-256 hashes and
 * compared in constant time. The bootstrap admin token from the config is
 * stored at start (see storeBootstrapToken) and also recognised from memory,
 * so it works before the database write succeeded.
 */
@Injectable()
export class ApiTokenAuth {
  private readonly logger = new Logger(ApiTokenAuth.name);
  private readonly bootstrapHash: string | undefined;

  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(API_ROLE_OPTIONS) options: ApiRoleOptions,
    private readonly users: UserSessions,
  ) {
    this.bootstrapHash =
      options.adminToken === undefined || options.adminToken === '' ? undefined : hashToken(options.adminToken);
  }

  /** Idempotent: a second start changes nothing; a changed admin token replaces the stored hash. */
  async storeBootstrapToken(): Promise<void> {
    if (this.bootstrapHash === undefined) return;
    await this.repositories.apiTokens.grant({
      tenantId: DEFAULT_TENANT_ID,
      name: BOOTSTRAP_TOKEN_NAME,
      tokenHash: this.bootstrapHash,
      role: 'ADMIN',
      instanceAdmin: true,
    });
  }

  async authenticate(authorization: string | undefined, now: Date): Promise<ApiPrincipal> {
    const token = bearerToken(authorization);
    if (token === undefined) throw new Unauthenticated('Send an API token as Authorization: Bearer <token>');
    if (looksLikeJwt(token)) return this.authenticateUser(token, now);
    const presented = hashToken(token);
    if (this.bootstrapHash !== undefined && sameTokenHash(presented, this.bootstrapHash)) {
      return {
        tokenId: BOOTSTRAP_TOKEN_NAME,
        tokenName: BOOTSTRAP_TOKEN_NAME,
        tenantId: DEFAULT_TENANT_ID,
        role: 'admin',
        namespace: null,
        instanceAdmin: true,
      };
    }
    const match = await this.repositories.apiTokens.findUsableByHash(presented, now);
    if (match === null || !sameTokenHash(presented, match.tokenHash))
      throw new Unauthenticated('The API token is unknown, revoked or expired');
    // Bookkeeping: a failed write must not refuse a valid token.
    await this.repositories.apiTokens.markUsed(match.token.id, now).catch((error: unknown) => {
      this.logger.warn({ tokenId: match.token.id, ...errorSummary(error) }, 'could not record the API token use');
    });
    return {
      tokenId: match.token.id,
      tokenName: match.token.name,
      tenantId: match.token.tenantId,
      role: roleOfStored(match.token.role),
      namespace: match.token.namespace,
      instanceAdmin: match.token.instanceAdmin,
    };
  }

  /** A user's access JWT: verified, then the user read again, so a deleted user or a changed role counts at once. */
  private async authenticateUser(token: string, now: Date): Promise<ApiPrincipal> {
    const identity = this.users.verify(token, now);
    const user = await this.repositories.users.getById(identity.userId);
    if (user === null) throw new Unauthenticated('The user of this access token no longer exists');
    return {
      tokenId: `user:${user.username}`,
      tokenName: user.username,
      tenantId: user.tenantId,
      role: roleOfStored(user.role),
      namespace: null,
      instanceAdmin: user.instanceAdmin,
      userId: user.id,
    };
  }
}
