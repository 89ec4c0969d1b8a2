import { Inject, Injectable } from '@nestjs/common';
import { bearerToken, hashToken, sameTokenHash } from '@lanner/auth';
import type { Repositories } from '@lanner/repository';
import { REPOSITORIES } from '@lanner/runtime';
import { API_ROLE_OPTIONS, type ApiRoleOptions, DEFAULT_TENANT } from '../api-role.options';
import { Forbidden, Unauthenticated } from '../http/api-errors';

/** Who a request acts as. */
export interface ApiPrincipal {
  readonly tokenId: string;
  readonly tenantId: string;
  readonly instanceAdmin: boolean;
}

export const BOOTSTRAP_TOKEN_NAME = 'bootstrap-admin';

/**
 * API-token authentication: tokens are opaque, stored as SHA-256 hashes and
 * compared in constant time. The bootstrap admin token from the config is
 * stored at start (see storeBootstrapToken) and also recognised from memory,
 * so it works before the database write succeeded.
 */
@Injectable()
export class ApiTokenAuth {
  private readonly bootstrapHash: string | undefined;

  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(API_ROLE_OPTIONS) options: ApiRoleOptions,
  ) {
    this.bootstrapHash =
      options.adminToken === undefined || options.adminToken === '' ? undefined : hashToken(options.adminToken);
  }

  /** Idempotent: a second start changes nothing; a changed admin token replaces the stored hash. */
  async storeBootstrapToken(): Promise<void> {
    if (this.bootstrapHash === undefined) return;
    await this.repositories.apiTokens.grant({
      tenantId: DEFAULT_TENANT,
      name: BOOTSTRAP_TOKEN_NAME,
      tokenHash: this.bootstrapHash,
      role: 'ADMIN',
      instanceAdmin: true,
    });
  }

  async authenticate(authorization: string | undefined, now: Date): Promise<ApiPrincipal> {
    const token = bearerToken(authorization);
    if (token === undefined) throw new Unauthenticated('Send an API token as Authorization: Bearer <token>');
    const presented = hashToken(token);
    if (this.bootstrapHash !== undefined && sameTokenHash(presented, this.bootstrapHash)) {
      return { tokenId: BOOTSTRAP_TOKEN_NAME, tenantId: DEFAULT_TENANT, instanceAdmin: true };
    }
    const match = await this.repositories.apiTokens.findUsableByHash(presented, now);
    if (match === null || !sameTokenHash(presented, match.tokenHash))
      throw new Unauthenticated('The API token is unknown, revoked or expired');
    return { tokenId: match.token.id, tenantId: match.token.tenantId, instanceAdmin: match.token.instanceAdmin };
  }

  /** A token acts on its own tenant; an instance admin on every tenant. */
  authorizeTenant(principal: ApiPrincipal, tenant: string | undefined): void {
    if (tenant === undefined || principal.instanceAdmin || principal.tenantId === tenant) return;
    throw new Forbidden(`This token may not act on tenant '${tenant}'`);
  }
}
