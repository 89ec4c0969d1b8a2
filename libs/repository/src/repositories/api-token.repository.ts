import { AlreadyExists, InvalidRecord, NotFound } from '../errors';
import type { ApiToken } from '../generated/prisma/client';
import { type Db, prismaErrorCode, UNIQUE_VIOLATION } from '../prisma';

/** A SHA-256 digest in lowercase hex: the only form of a token this repository accepts. */
const TOKEN_HASH = /^[0-9a-f]{64}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type ApiTokenRoleName = 'ADMIN' | 'DEVELOPER' | 'VIEWER';

/** An API token without its value or hash. */
export interface ApiTokenRecord {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly role: ApiTokenRoleName;
  readonly instanceAdmin: boolean;
  /** The namespace prefix the token is bound to, or null for the whole tenant. */
  readonly namespace: string | null;
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

/** A new tenant token (never an instance admin: that one comes from the config only). */
export interface NewApiToken {
  readonly tenantId: string;
  readonly name: string;
  readonly tokenHash: string;
  readonly role: ApiTokenRoleName;
  readonly namespace: string | null;
  readonly expiresAt: Date | null;
}

/** `lastUsedAt` is written at most this often per token, so that reads do not each cost a write. */
const LAST_USED_RESOLUTION_MS = 60_000;

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

  /** A new token; AlreadyExists when the tenant has one of that name (revoked ones included). */
  async create(token: NewApiToken): Promise<ApiTokenRecord> {
    assertTokenHash(token.tokenHash);
    try {
      const row = await this.db.apiToken.create({ data: { ...token, instanceAdmin: false } });
      return toApiTokenRecord(row);
    } catch (error) {
      if (prismaErrorCode(error) === UNIQUE_VIOLATION) throw new AlreadyExists('API token', token.name);
      throw error;
    }
  }

  /** The tenant's tokens, newest first, revoked and expired ones included. */
  async list(tenantId: string): Promise<ApiTokenRecord[]> {
    const rows = await this.db.apiToken.findMany({ where: { tenantId }, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }] });
    return rows.map(toApiTokenRecord);
  }

  /** The tenant's token with this id (NotFound otherwise, also for another tenant's). */
  async get(tenantId: string, id: string): Promise<ApiTokenRecord> {
    const row = UUID.test(id) ? await this.db.apiToken.findFirst({ where: { tenantId, id } }) : null;
    if (row === null) throw new NotFound('API token', id);
    return toApiTokenRecord(row);
  }

  /** Revokes the tenant's token at `at` (a second revoke keeps the first time); NotFound for an unknown id. */
  async revoke(tenantId: string, id: string, at: Date): Promise<ApiTokenRecord> {
    const token = await this.get(tenantId, id);
    if (token.revokedAt !== null) return token;
    await this.db.apiToken.updateMany({ where: { tenantId, id, revokedAt: null }, data: { revokedAt: at } });
    return this.get(tenantId, id);
  }

  /** Records a use at `at`, unless one was recorded within the last minute. */
  async markUsed(tokenId: string, at: Date): Promise<void> {
    const staleBefore = new Date(at.getTime() - LAST_USED_RESOLUTION_MS);
    await this.db.apiToken.updateMany({
      where: { id: tokenId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: staleBefore } }] },
      data: { lastUsedAt: at },
    });
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
    namespace: row.namespace,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
  };
}
