import { InvalidRecord } from '../errors';
import type { ApiToken } from '../generated/prisma/client';
import type { Db } from '../prisma';

/** A SHA-256 digest in lowercase hex: the only form of a token this repository accepts. */
const TOKEN_HASH = /^[0-9a-f]{64}$/;

export type ApiTokenRoleName = 'ADMIN' | 'DEVELOPER' | 'VIEWER';

/** An API token without its value or hash. */
export interface ApiTokenRecord {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly role: ApiTokenRoleName;
  readonly instanceAdmin: boolean;
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
}

/** An API token found by its hash: the stored hash comes along so the caller can compare it in constant time. */
export interface ApiTokenMatch {
  readonly token: ApiTokenRecord;
  readonly tokenHash: string;
}

export interface ApiTokenGrant {
  readonly tenantId: string;
  readonly name: string;
  readonly tokenHash: string;
  readonly role: ApiTokenRoleName;
  readonly instanceAdmin: boolean;
}

/** API tokens (opaque, stored as SHA-256 hashes), per tenant. Never stores or returns a token value. */
export class ApiTokenRepository {
  constructor(private readonly db: Db) {}

  /**
   * Creates the named token, or points it at a new hash and rights when it
   * exists (and un-revokes it): the bootstrap admin token follows the config on
   * every start, and a second start changes nothing.
   */
  async grant(grant: ApiTokenGrant): Promise<ApiTokenRecord> {
    assertTokenHash(grant.tokenHash);
    const fields = { tokenHash: grant.tokenHash, role: grant.role, instanceAdmin: grant.instanceAdmin, revokedAt: null };
    const row = await this.db.apiToken.upsert({
      where: { tenantId_name: { tenantId: grant.tenantId, name: grant.name } },
      create: { tenantId: grant.tenantId, name: grant.name, ...fields },
      update: fields,
    });
    return toApiTokenRecord(row);
  }

  /** The token with this hash, if it is neither revoked nor expired at `now`. */
  async findUsableByHash(tokenHash: string, now: Date): Promise<ApiTokenMatch | null> {
    if (!TOKEN_HASH.test(tokenHash)) return null;
    const row = await this.db.apiToken.findUnique({ where: { tokenHash } });
    if (row === null || row.revokedAt !== null || (row.expiresAt !== null && row.expiresAt <= now)) return null;
    return { token: toApiTokenRecord(row), tokenHash: row.tokenHash };
  }

  async markUsed(tokenId: string, at: Date): Promise<void> {
    await this.db.apiToken.updateMany({ where: { id: tokenId }, data: { lastUsedAt: at } });
  }
}

function assertTokenHash(tokenHash: string): void {
  if (!TOKEN_HASH.test(tokenHash)) throw new InvalidRecord('an API token must be stored as a lowercase hex SHA-256 hash');
}

function toApiTokenRecord(row: ApiToken): ApiTokenRecord {
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    role: row.role,
    instanceAdmin: row.instanceAdmin,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
  };
}
