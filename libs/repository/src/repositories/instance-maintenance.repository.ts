import type { Db } from '../prisma';

/** Maintenance mode as stored (one row; absent: never entered). */
export interface InstanceMaintenanceRecord {
  readonly enabled: boolean;
  readonly enteredAt: Date | null;
  /** Who entered it (the caller's subject), for the answer and the log. */
  readonly enteredBy: string | null;
  readonly exitedAt: Date | null;
  /** When the executions held during the last maintenance were announced again (after `exitedAt`: done). */
  readonly releasedAt: Date | null;
}

const NEVER: InstanceMaintenanceRecord = { enabled: false, enteredAt: null, enteredBy: null, exitedAt: null, releasedAt: null };
const ROW = 1;

/**
 * Maintenance mode of the whole cluster (RELIABILITY.md "Maintenance mode"):
 * the api enters and leaves it, every role reads it at start, the liveness
 * coordinator records that it released the executions held meanwhile. Time is
 * always an argument.
 */
export class InstanceMaintenanceRepository {
  constructor(private readonly db: Db) {}

  async get(): Promise<InstanceMaintenanceRecord> {
    const row = await this.db.instanceMaintenance.findUnique({ where: { id: ROW } });
    return row === null ? NEVER : toRecord(row);
  }

  /** Enters maintenance; entering again keeps the first entry's time and author. */
  async enter(by: string, at: Date): Promise<InstanceMaintenanceRecord> {
    const rows = await this.db.$queryRaw<RowShape[]>`
      INSERT INTO instance_maintenance (id, enabled, entered_at, entered_by)
      VALUES (${ROW}, true, ${at}, ${by})
      ON CONFLICT (id) DO UPDATE SET
        entered_at = CASE WHEN instance_maintenance.enabled THEN instance_maintenance.entered_at ELSE EXCLUDED.entered_at END,
        entered_by = CASE WHEN instance_maintenance.enabled THEN instance_maintenance.entered_by ELSE EXCLUDED.entered_by END,
        enabled = true
      RETURNING enabled, entered_at AS "enteredAt", entered_by AS "enteredBy", exited_at AS "exitedAt", released_at AS "releasedAt"`;
    return toRecord(rows[0]);
  }

  /** Leaves maintenance; leaving when not in it changes nothing. */
  async exit(at: Date): Promise<InstanceMaintenanceRecord> {
    await this.db.instanceMaintenance.updateMany({ where: { id: ROW, enabled: true }, data: { enabled: false, exitedAt: at } });
    return this.get();
  }

  /** The executions held until `exitedAt` were announced again: the coordinator does not do it twice. */
  async markReleased(exitedAt: Date, at: Date): Promise<void> {
    await this.db.instanceMaintenance.updateMany({ where: { id: ROW, enabled: false, exitedAt }, data: { releasedAt: at } });
  }
}

interface RowShape {
  enabled: boolean;
  enteredAt: Date | null;
  enteredBy: string | null;
  exitedAt: Date | null;
  releasedAt: Date | null;
}

function toRecord(row: RowShape): InstanceMaintenanceRecord {
  return {
    enabled: row.enabled,
    enteredAt: row.enteredAt,
    enteredBy: row.enteredBy,
    exitedAt: row.exitedAt,
    releasedAt: row.releasedAt,
  };
}

/** Whether the executions held by the maintenance that ended at `exitedAt` still wait to be announced again. */
export function heldExecutionsAwaitRelease(record: InstanceMaintenanceRecord): boolean {
  if (record.enabled || record.exitedAt === null) return false;
  return record.releasedAt === null || record.releasedAt.getTime() < record.exitedAt.getTime();
}
