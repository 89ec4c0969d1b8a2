import type { RegistrationTokenRecord } from '@lanner/model';
import { AlreadyExists, InvalidRecord, NotFound } from '../errors';
import type { RegistrationToken } from '../generated/prisma/client';
import { type Db, FOREIGN_KEY_VIOLATION, prismaErrorCode, UNIQUE_VIOLATION } from '../prisma';

/** A SHA-256 digest in lowercase hex: the only form of a token this repository accepts. */
const TOKEN_HASH = /^[0-9a-f]{64}$/;

/** Token ids are UUIDs; anything else cannot name a token (and must not reach the uuid column). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A registration token found by its hash: the stored hash comes along so the caller can compare it in constant time. */
export interface RegistrationTokenMatch {
  readonly token: RegistrationTokenRecord;
  readonly tokenHash: string;
}

/**
 * Worker registration tokens. Only hashes come in (hashing is the auth
 * library's job) and the value never comes out; the hash only through
 * findMatchByHash, for the caller's constant-time comparison.
 */
export class RegistrationTokenRepository {
  constructor(private readonly db: Db) {}

  /** AlreadyExists when the group has a token of that name or the hash is registered (on any group). */
  async create(workerGroupId: string, name: string, tokenHash: string): Promise<RegistrationTokenRecord> {
    assertTokenHash(tokenHash);
    try {
      const row = await this.db.registrationToken.create({ data: { workerGroupId, name, tokenHash } });
      return toRegistrationTokenRecord(row);
    } catch (error) {
      const code = prismaErrorCode(error);
      if (code === FOREIGN_KEY_VIOLATION) throw new NotFound('worker group', workerGroupId);
      if (code === UNIQUE_VIOLATION) {
        const clash = await this.db.registrationToken.findUnique({ where: { tokenHash }, select: { id: true } });
        throw clash !== null
          ? new AlreadyExists('registration token', '(this token value)')
          : new AlreadyExists('registration token', `${workerGroupId}/${name}`);
      }
      throw error;
    }
  }

  /** The token with this hash, revoked or not (the caller decides what a revoked token means). */
  async findByHash(tokenHash: string): Promise<RegistrationTokenRecord | null> {
    if (!TOKEN_HASH.test(tokenHash)) return null;
    const row = await this.db.registrationToken.findUnique({ where: { tokenHash } });
    return row === null ? null : toRegistrationTokenRecord(row);
  }

  /**
   * Like findByHash, with the stored hash, so the caller can compare it with
   * the presented one in constant time. The hash goes no further than that check.
   */
  async findMatchByHash(tokenHash: string): Promise<RegistrationTokenMatch | null> {
    if (!TOKEN_HASH.test(tokenHash)) return null;
    const row = await this.db.registrationToken.findUnique({ where: { tokenHash } });
    return row === null ? null : { token: toRegistrationTokenRecord(row), tokenHash: row.tokenHash };
  }

  /** The token with this id, revoked or not. */
  async findById(tokenId: string): Promise<RegistrationTokenRecord | null> {
    if (!UUID.test(tokenId)) return null;
    const row = await this.db.registrationToken.findUnique({ where: { id: tokenId } });
    return row === null ? null : toRegistrationTokenRecord(row);
  }

  /** Whether the token exists and is not revoked: what a worker's stream and refreshes need at every check. */
  async isActive(tokenId: string): Promise<boolean> {
    if (!UUID.test(tokenId)) return false;
    const row = await this.db.registrationToken.findUnique({ where: { id: tokenId }, select: { revokedAt: true } });
    return row !== null && row.revokedAt === null;
  }

  async listByGroup(workerGroupId: string): Promise<RegistrationTokenRecord[]> {
    const rows = await this.db.registrationToken.findMany({ where: { workerGroupId }, orderBy: { createdAt: 'asc' } });
    return rows.map(toRegistrationTokenRecord);
  }

  /** Revokes at `at`; revoking again keeps the first revocation time. NotFound if the group has no such token. */
  async revoke(workerGroupId: string, tokenId: string, at: Date): Promise<RegistrationTokenRecord> {
    return this.db.$transaction(async (tx) => {
      const row = await tx.registrationToken.findFirst({ where: { id: tokenId, workerGroupId } });
      if (row === null) throw new NotFound('registration token', tokenId);
      if (row.revokedAt !== null) return toRegistrationTokenRecord(row);
      return toRegistrationTokenRecord(await tx.registrationToken.update({ where: { id: tokenId }, data: { revokedAt: at } }));
    });
  }

  async markUsed(tokenId: string, at: Date): Promise<void> {
    await this.db.registrationToken.updateMany({ where: { id: tokenId }, data: { lastUsedAt: at } });
  }
}

function assertTokenHash(tokenHash: string): void {
  if (!TOKEN_HASH.test(tokenHash)) {
    // Refusing anything else keeps a raw token from being stored by mistake.
    throw new InvalidRecord(
      'a registration token is stored as its SHA-256 hash (64 lowercase hex characters), never as its value',
    );
  }
}

function toRegistrationTokenRecord(row: RegistrationToken): RegistrationTokenRecord {
  return {
    id: row.id,
    workerGroupId: row.workerGroupId,
    name: row.name,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
  };
}
