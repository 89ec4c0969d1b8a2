import { AlreadyExists, InvalidRecord, NotFound } from '../errors';
import type { Worker } from '../generated/prisma/client';
import { type Db, FOREIGN_KEY_VIOLATION, prismaErrorCode, UNIQUE_VIOLATION } from '../prisma';

/** A SHA-256 digest in lowercase hex: the only form of a token this repository accepts. */
const TOKEN_HASH = /^[0-9a-f]{64}$/;

/** A worker registered with a registration token; its id was chosen by the server. */
export interface WorkerRecord {
  readonly id: string;
  readonly workerGroupId: string;
  /** Null once the registration token was deleted. */
  readonly registrationTokenId: string | null;
  readonly name: string | null;
  readonly createdAt: Date;
}

export interface NewWorkerRecord {
  readonly id: string;
  readonly workerGroupId: string;
  readonly registrationTokenId: string;
  readonly name: string | null;
}

export interface NewRefreshTokenRecord {
  readonly tokenHash: string;
  readonly familyId: string;
  readonly expiresAt: Date;
}

/** A refresh token without its hash. */
export interface RefreshTokenRecord {
  readonly id: string;
  readonly familyId: string;
  readonly workerId: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly usedAt: Date | null;
  readonly revokedAt: Date | null;
}

/** The presented token with its stored hash (for a constant-time comparison by the caller) and its worker. */
export interface PresentedRefreshToken {
  readonly token: RefreshTokenRecord;
  readonly tokenHash: string;
  readonly worker: WorkerRecord;
  /** Whether the worker's registration token exists and is not revoked, read in the same transaction. */
  readonly registrationTokenActive: boolean;
}

/**
 * `rotated`: the token was usable, is now used, and its successor is stored.
 * Otherwise nothing changed: `used` (presented before: a reuse), `revoked`,
 * `expired`, or `unknown`.
 */
export type RefreshTokenConsumptionRecord =
  | ({ readonly outcome: 'rotated'; readonly successor: RefreshTokenRecord } & PresentedRefreshToken)
  | ({ readonly outcome: 'used' | 'revoked' | 'expired' } & PresentedRefreshToken)
  | { readonly outcome: 'unknown' };

/**
 * Registered workers and their rotating refresh tokens. Refresh tokens come in
 * as SHA-256 hashes only; single use is enforced by the database (a
 * conditional UPDATE under the row lock), so of two concurrent presentations
 * of one token exactly one rotates it.
 */
export class WorkerCredentialRepository {
  constructor(private readonly db: Db) {}

  /** Creates the worker and the first refresh token of a new family in one transaction. */
  async createWorker(worker: NewWorkerRecord, firstRefreshToken: NewRefreshTokenRecord, at: Date): Promise<WorkerRecord> {
    assertTokenHash(firstRefreshToken.tokenHash);
    try {
      const row = await this.db.$transaction(async (tx) => {
        const created = await tx.worker.create({
          data: {
            id: worker.id,
            workerGroupId: worker.workerGroupId,
            registrationTokenId: worker.registrationTokenId,
            name: worker.name,
            createdAt: at,
          },
        });
        await tx.refreshToken.create({
          data: {
            workerId: worker.id,
            familyId: firstRefreshToken.familyId,
            tokenHash: firstRefreshToken.tokenHash,
            expiresAt: firstRefreshToken.expiresAt,
            createdAt: at,
          },
        });
        return created;
      });
      return toWorkerRecord(row);
    } catch (error) {
      const code = prismaErrorCode(error);
      if (code === FOREIGN_KEY_VIOLATION)
        throw new NotFound('worker group or registration token', `${worker.workerGroupId}/${worker.registrationTokenId}`);
      if (code === UNIQUE_VIOLATION) throw new AlreadyExists('worker or refresh token', worker.id);
      throw error;
    }
  }

  async findWorker(workerId: string): Promise<WorkerRecord | null> {
    const row = await this.db.worker.findUnique({ where: { id: workerId } });
    return row === null ? null : toWorkerRecord(row);
  }

  /**
   * Uses the refresh token with this hash and stores its successor in the same
   * family, atomically, when the token is unused, unrevoked and unexpired at
   * `at`. The UPDATE that marks it used is conditional on `used_at IS NULL`: a
   * concurrent presentation waits for the row lock, then matches nothing and
   * sees `used`.
   */
  async consumeRefreshToken(
    tokenHash: string,
    successor: Omit<NewRefreshTokenRecord, 'familyId'>,
    at: Date,
  ): Promise<RefreshTokenConsumptionRecord> {
    if (!TOKEN_HASH.test(tokenHash)) return { outcome: 'unknown' };
    assertTokenHash(successor.tokenHash);
    return this.db.$transaction(async (tx) => {
      // One conditional UPDATE, written out so the check and the write cannot be split into a read and a write.
      const claimed = await tx.$executeRaw`
        UPDATE refresh_tokens SET used_at = ${at}
        WHERE token_hash = ${tokenHash} AND used_at IS NULL AND revoked_at IS NULL AND expires_at > ${at}`;
      const row = await tx.refreshToken.findUnique({
        where: { tokenHash },
        include: { worker: { include: { registrationToken: { select: { revokedAt: true } } } } },
      });
      if (row === null) return { outcome: 'unknown' } as const;
      const presented: PresentedRefreshToken = {
        token: toRefreshTokenRecord(row),
        tokenHash: row.tokenHash,
        worker: toWorkerRecord(row.worker),
        registrationTokenActive: row.worker.registrationToken !== null && row.worker.registrationToken.revokedAt === null,
      };
      if (claimed === 0) {
        const outcome = row.usedAt !== null ? 'used' : row.revokedAt !== null ? 'revoked' : 'expired';
        return { outcome, ...presented } as const;
      }
      const next = await tx.refreshToken.create({
        data: {
          workerId: row.workerId,
          familyId: row.familyId,
          tokenHash: successor.tokenHash,
          expiresAt: successor.expiresAt,
          createdAt: at,
        },
      });
      return { outcome: 'rotated', ...presented, successor: toRefreshTokenRecord(next) } as const;
    });
  }

  /** Revokes every token of the family not revoked yet (the newest included); returns how many. */
  async revokeFamily(familyId: string, at: Date): Promise<number> {
    const { count } = await this.db.refreshToken.updateMany({ where: { familyId, revokedAt: null }, data: { revokedAt: at } });
    return count;
  }

  /** Revokes the refresh tokens of every worker registered with this registration token; returns how many. */
  async revokeByRegistrationToken(registrationTokenId: string, at: Date): Promise<number> {
    const { count } = await this.db.refreshToken.updateMany({
      where: { revokedAt: null, worker: { registrationTokenId } },
      data: { revokedAt: at },
    });
    return count;
  }

  /** The family's tokens, oldest first. */
  async listFamily(familyId: string): Promise<RefreshTokenRecord[]> {
    const rows = await this.db.refreshToken.findMany({ where: { familyId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    return rows.map(toRefreshTokenRecord);
  }
}

function assertTokenHash(tokenHash: string): void {
  if (!TOKEN_HASH.test(tokenHash)) {
    // Refusing anything else keeps a raw token from being stored by mistake.
    throw new InvalidRecord('a refresh token is stored as its SHA-256 hash (64 lowercase hex characters), never as its value');
  }
}

function toWorkerRecord(row: Worker): WorkerRecord {
  return {
    id: row.id,
    workerGroupId: row.workerGroupId,
    registrationTokenId: row.registrationTokenId,
    name: row.name,
    createdAt: row.createdAt,
  };
}

function toRefreshTokenRecord(row: {
  id: string;
  familyId: string;
  workerId: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
  revokedAt: Date | null;
}): RefreshTokenRecord {
  return {
    id: row.id,
    familyId: row.familyId,
    workerId: row.workerId,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    usedAt: row.usedAt,
    revokedAt: row.revokedAt,
  };
}
