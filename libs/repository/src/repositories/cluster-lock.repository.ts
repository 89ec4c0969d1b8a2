import type { Db } from '../prisma';

/**
 * Named leases in `cluster_locks` (e.g. the active liveness coordinator among
 * executors). A lease is held until `expiresAt`; its holder renews it before
 * then, and anyone may take it once it has expired. Time is always an argument.
 */
export class ClusterLockRepository {
  constructor(private readonly db: Db) {}

  /**
   * Takes the lease `name` for `holder` until `at + ttlMs`, or renews it when
   * `holder` already holds it. True when `holder` holds it now; false when
   * another holder's lease has not expired at `at`. One statement, so two
   * contenders never both win.
   */
  async tryAcquire(name: string, holder: string, ttlMs: number, at: Date): Promise<boolean> {
    const expiresAt = new Date(at.getTime() + ttlMs);
    const rows = await this.db.$queryRaw<{ holder: string }[]>`
      INSERT INTO cluster_locks (name, holder, expires_at)
      VALUES (${name}, ${holder}, ${expiresAt})
      ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
      WHERE cluster_locks.holder = EXCLUDED.holder OR cluster_locks.expires_at <= ${at}
      RETURNING holder`;
    return rows.length === 1 && rows[0].holder === holder;
  }

  /** Gives the lease up at once (graceful stop), only if `holder` still holds it. */
  async release(name: string, holder: string): Promise<void> {
    await this.db.clusterLock.deleteMany({ where: { name, holder } });
  }

  /** The current holder and expiry, or null when nobody ever took it or it was released. */
  async get(name: string): Promise<{ readonly holder: string; readonly expiresAt: Date } | null> {
    const row = await this.db.clusterLock.findUnique({ where: { name } });
    return row === null ? null : { holder: row.holder, expiresAt: row.expiresAt };
  }
}
