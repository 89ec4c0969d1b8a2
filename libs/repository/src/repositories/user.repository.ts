import { AlreadyExists, NotFound } from '../errors';
import type { User } from '../generated/prisma/client';
import { type Db, prismaErrorCode, UNIQUE_VIOLATION } from '../prisma';
import type { ApiTokenRoleName } from './api-token.repository';

/** A user without its password hash. */
export interface UserRecord {
  readonly id: string;
  readonly username: string;
  readonly tenantId: string;
  readonly role: ApiTokenRoleName;
  readonly instanceAdmin: boolean;
  readonly failedLogins: number;
  readonly lockedUntil: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** A user found to check a password: the stored hash comes along for the verifier only. */
export interface UserWithPassword {
  readonly user: UserRecord;
  readonly passwordHash: string;
}

export interface NewUser {
  readonly username: string;
  readonly passwordHash: string;
  readonly tenantId: string;
  readonly role: ApiTokenRoleName;
  readonly instanceAdmin: boolean;
}

export interface UserChange {
  readonly passwordHash?: string;
  readonly tenantId?: string;
  readonly role?: ApiTokenRoleName;
  readonly instanceAdmin?: boolean;
}

/** A refresh token row as the rotation needs it. */
export interface StoredUserRefreshToken {
  readonly id: string;
  readonly userId: string;
  readonly familyId: string;
  readonly tokenHash: string;
}

export type UserRefreshConsumption =
  | { readonly outcome: 'rotated'; readonly token: StoredUserRefreshToken }
  | { readonly outcome: 'used' | 'revoked' | 'expired'; readonly token: StoredUserRefreshToken }
  | { readonly outcome: 'unknown' };

/** Users who log in with a password, and the refresh tokens of their logins. Never returns a hash outside `findForLogin`. */
export class UserRepository {
  constructor(private readonly db: Db) {}

  async create(user: NewUser): Promise<UserRecord> {
    try {
      return toUserRecord(await this.db.user.create({ data: user }));
    } catch (error) {
      if (prismaErrorCode(error) === UNIQUE_VIOLATION) throw new AlreadyExists('user', user.username);
      throw error;
    }
  }

  async count(): Promise<number> {
    return this.db.user.count();
  }

  async list(): Promise<UserRecord[]> {
    const rows = await this.db.user.findMany({ orderBy: { username: 'asc' } });
    return rows.map(toUserRecord);
  }

  async get(username: string): Promise<UserRecord> {
    const row = await this.db.user.findUnique({ where: { username } });
    if (row === null) throw new NotFound('user', username);
    return toUserRecord(row);
  }

  async getById(id: string): Promise<UserRecord | null> {
    const row = await this.db.user.findUnique({ where: { id } });
    return row === null ? null : toUserRecord(row);
  }

  async findForLogin(username: string): Promise<UserWithPassword | null> {
    const row = await this.db.user.findUnique({ where: { username } });
    return row === null ? null : { user: toUserRecord(row), passwordHash: row.passwordHash };
  }

  async findByIdForLogin(id: string): Promise<UserWithPassword | null> {
    const row = await this.db.user.findUnique({ where: { id } });
    return row === null ? null : { user: toUserRecord(row), passwordHash: row.passwordHash };
  }

  async update(username: string, change: UserChange): Promise<UserRecord> {
    const updated = await this.db.user.updateMany({ where: { username }, data: change });
    if (updated.count === 0) throw new NotFound('user', username);
    return this.get(username);
  }

  /** Deletes the user and, with it, every refresh token of its logins. */
  async delete(username: string): Promise<void> {
    const deleted = await this.db.user.deleteMany({ where: { username } });
    if (deleted.count === 0) throw new NotFound('user', username);
  }

  /**
   * Counts one failed login atomically and returns the new count; when it
   * reaches `limit` the user is locked until `lockUntil` (and the count starts over).
   */
  async recordFailedLogin(
    id: string,
    limit: number,
    lockUntil: Date,
  ): Promise<{ failedLogins: number; lockedUntil: Date | null }> {
    const rows = await this.db.$queryRaw<{ failed_logins: number; locked_until: Date | null }[]>`
      UPDATE users SET
        failed_logins = CASE WHEN failed_logins + 1 >= ${limit} THEN 0 ELSE failed_logins + 1 END,
        locked_until = CASE WHEN failed_logins + 1 >= ${limit} THEN ${lockUntil} ELSE locked_until END,
        updated_at = now()
      WHERE id = ${id}::uuid
      RETURNING failed_logins, locked_until`;
    const row = rows[0];
    return { failedLogins: row?.failed_logins ?? 0, lockedUntil: row?.locked_until ?? null };
  }

  async recordSuccessfulLogin(id: string): Promise<void> {
    await this.db.user.updateMany({ where: { id }, data: { failedLogins: 0, lockedUntil: null } });
  }

  async createRefreshToken(token: { userId: string; familyId: string; tokenHash: string; expiresAt: Date }): Promise<void> {
    await this.db.userRefreshToken.create({ data: token });
  }

  /**
   * Marks the presented token used and stores its successor in the same
   * family, in one transaction, when it is usable at `at`. Of two concurrent
   * presentations exactly one rotates (the conditional update decides).
   */
  async consumeRefreshToken(
    tokenHash: string,
    successor: { tokenHash: string; expiresAt: Date },
    at: Date,
  ): Promise<UserRefreshConsumption> {
    return this.db.$transaction(async (tx) => {
      const row = await tx.userRefreshToken.findUnique({ where: { tokenHash } });
      if (row === null) return { outcome: 'unknown' } as const;
      const token: StoredUserRefreshToken = { id: row.id, userId: row.userId, familyId: row.familyId, tokenHash: row.tokenHash };
      if (row.revokedAt !== null) return { outcome: 'revoked', token } as const;
      if (row.usedAt !== null) return { outcome: 'used', token } as const;
      if (row.expiresAt.getTime() <= at.getTime()) return { outcome: 'expired', token } as const;
      const used = await tx.userRefreshToken.updateMany({
        where: { id: row.id, usedAt: null, revokedAt: null },
        data: { usedAt: at },
      });
      if (used.count === 0) return { outcome: 'used', token } as const;
      await tx.userRefreshToken.create({
        data: { userId: row.userId, familyId: row.familyId, tokenHash: successor.tokenHash, expiresAt: successor.expiresAt },
      });
      return { outcome: 'rotated', token } as const;
    });
  }

  /** Revokes every token of the family not revoked yet; returns how many. */
  async revokeRefreshFamily(familyId: string, at: Date): Promise<number> {
    const revoked = await this.db.userRefreshToken.updateMany({ where: { familyId, revokedAt: null }, data: { revokedAt: at } });
    return revoked.count;
  }

  /** Revokes every login of the user (after a password change or a deletion). */
  async revokeRefreshTokensOf(userId: string, at: Date): Promise<number> {
    const revoked = await this.db.userRefreshToken.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: at } });
    return revoked.count;
  }

  /** The family of this token, if it exists (logout revokes it). */
  async refreshFamilyOf(tokenHash: string): Promise<string | null> {
    const row = await this.db.userRefreshToken.findUnique({ where: { tokenHash }, select: { familyId: true } });
    return row?.familyId ?? null;
  }
}

function toUserRecord(row: User): UserRecord {
  return {
    id: row.id,
    username: row.username,
    tenantId: row.tenantId,
    role: row.role,
    instanceAdmin: row.instanceAdmin,
    failedLogins: row.failedLogins,
    lockedUntil: row.lockedUntil,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
