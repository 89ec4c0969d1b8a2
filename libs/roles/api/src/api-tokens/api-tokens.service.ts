import { Injectable } from '@nestjs/common';
import { mayGrant, TENANT_ROLES } from '@lanner/access';
import { generateSecretToken, hashToken } from '@lanner/auth';
import { NAMESPACE_PATTERN } from '@lanner/model';
import type { ApiTokenRecord, TenantRepositories } from '@lanner/repository';
import { z } from 'zod';
import { accessSubjectOf, type ApiPrincipal, storedRole } from '../auth/api-token-auth';
import { Forbidden, InvalidRequest } from '../http/api-errors';
import { parseWith } from '../http/request-body';

const MAX_NAME_LENGTH = 200;

/** The body of `POST /api-tokens`: parsed here, documented from here. */
export const NewApiTokenSchema = z
  .object({
    name: z.string().trim().min(1, 'must not be blank').max(MAX_NAME_LENGTH, `must be at most ${MAX_NAME_LENGTH} characters`),
    role: z.enum(TENANT_ROLES),
    namespace: z
      .string()
      .regex(NAMESPACE_PATTERN, 'must be a namespace such as company.team')
      .describe('Bind the token to this namespace and its children')
      .optional(),
    expiresAt: z.iso
      .datetime({ offset: true, message: 'must be an ISO-8601 instant such as 2027-01-31T00:00:00Z' })
      .describe('Refused from this instant on')
      .optional(),
  })
  .strict();

/** A new token with its value: the only moment the value exists outside the client that presents it. */
export interface MintedApiToken {
  readonly record: ApiTokenRecord;
  readonly token: string;
}

/**
 * A tenant's API tokens, for CI and scripts: random (256 bits), shown once,
 * stored only as their SHA-256 hash, bound to the tenant, a role and
 * optionally a namespace prefix. Nobody creates a token stronger than their own.
 */
@Injectable()
export class ApiTokensService {
  async mint(tenant: TenantRepositories, creator: ApiPrincipal, body: unknown, now: Date): Promise<MintedApiToken> {
    const wanted = parseWith(NewApiTokenSchema, body, 'body');
    const expiresAt = wanted.expiresAt === undefined ? null : new Date(wanted.expiresAt);
    if (expiresAt !== null && expiresAt <= now)
      throw new InvalidRequest('The body is not valid', [{ path: 'expiresAt', message: 'must be in the future' }]);
    const grant = { tenantId: tenant.tenantId, role: wanted.role, namespace: wanted.namespace ?? null };
    if (!mayGrant(accessSubjectOf(creator), grant))
      throw new Forbidden(
        `A token may not create a stronger one: role '${grant.role}'${grant.namespace === null ? ' on the whole tenant' : ` on namespace '${grant.namespace}'`} is more than this one holds`,
      );
    const token = generateSecretToken();
    const record = await tenant.apiTokens.create({
      name: wanted.name,
      tokenHash: hashToken(token),
      role: storedRole(grant.role),
      namespace: grant.namespace,
      expiresAt,
    });
    return { record, token };
  }

  list(tenant: TenantRepositories): Promise<ApiTokenRecord[]> {
    return tenant.apiTokens.list();
  }

  async revoke(tenant: TenantRepositories, revoker: ApiPrincipal, id: string, now: Date): Promise<void> {
    const token = await tenant.apiTokens.get(id);
    if (token.instanceAdmin && !revoker.instanceAdmin)
      throw new Forbidden("Missing permission 'api-token:write' on an instance admin's token: only an instance admin holds it");
    await tenant.apiTokens.revoke(id, now);
  }
}
