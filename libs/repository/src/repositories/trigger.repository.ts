import type {
  DeclaredTrigger,
  NewExecution,
  RecordPage,
  TriggerKey,
  TriggerSearchQuery,
  TriggerStateRecord,
} from '@lanner/model';
import { TriggerNotFound } from '../errors';
import { Prisma } from '../generated/prisma/client';
import { type Db, type DbOrTx, labelsOf, storedJson } from '../prisma';
import { newExecutionRow } from './execution.repository';

/** A schedule never evaluated is due at once: the scheduler reads only rows whose next date has passed. */
const NOT_EVALUATED = new Date(0);

/** What a scheduler writes after evaluating a claimed trigger. */
export interface TriggerAdvance {
  /** The next date to evaluate; null when the schedule has no future date. */
  readonly nextDate: Date | null;
  /** Executions the evaluation fired, inserted in the same transaction. */
  readonly executions: readonly NewExecution[];
  /** The date of the last firing among them. */
  readonly lastDate?: Date;
  /** `stopAfter` matched: the trigger disables itself. */
  readonly disable?: boolean;
}

interface TriggerRow {
  tenant_id: string;
  namespace: string;
  flow_id: string;
  trigger_id: string;
  kind: string;
  next_date: Date | null;
  pending: boolean;
  last_date: Date | null;
  last_execution_id: string | null;
  last_execution_state: string | null;
  lock_holder: string | null;
  lock_expires_at: Date | null;
  disabled: boolean;
  updated_at: Date;
}

/**
 * The trigger table: one row per trigger of a live flow, kept in step with the
 * flow revisions, and the scheduler's leases on due schedules. Time is always
 * an argument, never read here.
 */
export class TriggerRepository {
  constructor(private readonly db: Db) {}

  /**
   * Makes the rows of one flow match `declared` (inside the flow revision's
   * transaction): rows of removed triggers go, new ones come, and a schedule
   * whose spec changed is evaluated afresh (from its next date after now).
   */
  static async syncFlow(
    tx: DbOrTx,
    tenantId: string,
    namespace: string,
    flowId: string,
    declared: readonly DeclaredTrigger[],
  ): Promise<void> {
    await tx.flowTriggerState.deleteMany({
      where: { tenantId, namespace, flowId, triggerId: { notIn: declared.map((trigger) => trigger.triggerId) } },
    });
    for (const trigger of declared) {
      const schedule = trigger.scheduleSpec !== undefined;
      const fresh = { nextDate: schedule ? NOT_EVALUATED : null, pending: schedule, scheduleSpec: trigger.scheduleSpec ?? null };
      const key = { tenantId, namespace, flowId, triggerId: trigger.triggerId };
      const existing = await tx.flowTriggerState.findUnique({ where: { tenantId_namespace_flowId_triggerId: key } });
      if (existing === null) {
        await tx.flowTriggerState.create({ data: { ...key, kind: trigger.kind, ...fresh } });
      } else if (existing.kind !== trigger.kind || existing.scheduleSpec !== (trigger.scheduleSpec ?? null)) {
        await tx.flowTriggerState.update({
          where: { tenantId_namespace_flowId_triggerId: key },
          data: { kind: trigger.kind, ...fresh, lockHolder: null, lockExpiresAt: null },
        });
      }
    }
  }

  /**
   * Leases up to `limit` due schedules to `holder` until `now + leaseMs`: next
   * date passed, not disabled, no live lease. One statement with SKIP LOCKED,
   * so concurrent schedulers never claim the same row; a lease whose holder
   * died expires and the row is claimed again.
   */
  async claimDue(holder: string, now: Date, leaseMs: number, limit: number): Promise<TriggerStateRecord[]> {
    const expiresAt = new Date(now.getTime() + leaseMs);
    const rows = await this.db.$queryRaw<TriggerRow[]>`
      UPDATE flow_triggers AS t SET lock_holder = ${holder}, lock_expires_at = ${expiresAt}
      FROM (
        SELECT tenant_id, namespace, flow_id, trigger_id FROM flow_triggers
        WHERE next_date <= ${now} AND NOT disabled AND (lock_expires_at IS NULL OR lock_expires_at <= ${now})
        ORDER BY next_date
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      ) AS due
      WHERE t.tenant_id = due.tenant_id AND t.namespace = due.namespace AND t.flow_id = due.flow_id AND t.trigger_id = due.trigger_id
      RETURNING t.*, (SELECT e.state::text FROM executions e WHERE e.id = t.last_execution_id) AS last_execution_state`;
    return rows.map(toRecord);
  }

  /**
   * Writes an evaluation of the row `holder` claimed (as `claimed`), and inserts the executions it fired, in one
   * transaction. False, writing nothing, when the row changed since (another
   * scheduler took an expired lease and advanced it, the flow changed or was
   * deleted): each date fires once.
   */
  async advance(claimed: TriggerStateRecord, holder: string, advance: TriggerAdvance): Promise<boolean> {
    const key = {
      tenantId: claimed.tenantId,
      namespace: claimed.namespace,
      flowId: claimed.flowId,
      triggerId: claimed.triggerId,
    };
    const claimedNextDate = claimed.pending ? NOT_EVALUATED : claimed.nextDate;
    return this.db.$transaction(async (tx) => {
      const last = advance.executions.at(-1);
      const { count } = await tx.flowTriggerState.updateMany({
        where: { ...key, lockHolder: holder, nextDate: claimedNextDate },
        data: {
          nextDate: advance.nextDate,
          pending: false,
          lockHolder: null,
          lockExpiresAt: null,
          ...(advance.disable === true ? { disabled: true } : {}),
          ...(advance.lastDate !== undefined ? { lastDate: advance.lastDate } : {}),
          ...(last !== undefined ? { lastExecutionId: last.id } : {}),
        },
      });
      if (count === 0) return false;
      if (advance.executions.length > 0) {
        await tx.execution.createMany({ data: advance.executions.map((execution) => newExecutionRow(key.tenantId, execution)) });
      }
      return true;
    });
  }

  /**
   * Executions a trigger of `triggerType` created before `before` that the
   * executor never handled (still CREATED, no state): a scheduler killed
   * between its commit and its `execution.created` leaves these behind, and a
   * scheduler announces them again at start.
   */
  async unannouncedExecutions(
    triggerType: string,
    before: Date,
    limit: number,
  ): Promise<(NewExecution & { tenantId: string })[]> {
    const rows = await this.db.execution.findMany({
      where: {
        state: 'CREATED',
        stateData: { equals: Prisma.DbNull },
        createdAt: { lt: before },
        trigger: { path: ['type'], equals: triggerType },
      },
      orderBy: { createdAt: 'asc' },
      take: limit,
    });
    return rows.map((row) => ({
      tenantId: row.tenantId,
      id: row.id,
      namespace: row.namespace,
      flowId: row.flowId,
      flowRevision: row.flowRevision,
      state: 'CREATED',
      stateHistories: [],
      inputs: storedJson(row.inputs),
      labels: labelsOf(row.labels),
    }));
  }

  async get(key: TriggerKey): Promise<TriggerStateRecord> {
    const rows = await this.db.$queryRaw<TriggerRow[]>`
      SELECT t.*, (SELECT e.state::text FROM executions e WHERE e.id = t.last_execution_id) AS last_execution_state
      FROM flow_triggers t
      WHERE t.tenant_id = ${key.tenantId} AND t.namespace = ${key.namespace} AND t.flow_id = ${key.flowId} AND t.trigger_id = ${key.triggerId}`;
    if (rows.length === 0) throw new TriggerNotFound(key.namespace, key.flowId, key.triggerId);
    return toRecord(rows[0]);
  }

  /** Triggers of live flows, by namespace, flow and trigger id. */
  async search(tenantId: string, query: TriggerSearchQuery): Promise<RecordPage<TriggerStateRecord>> {
    const namespace = query.namespace ?? null;
    const flowId = query.flowId ?? null;
    const size = Math.max(1, Math.floor(query.size));
    const offset = (Math.max(1, Math.floor(query.page)) - 1) * size;
    const rows = await this.db.$queryRaw<(TriggerRow & { total: bigint })[]>`
      SELECT t.*, (SELECT e.state::text FROM executions e WHERE e.id = t.last_execution_id) AS last_execution_state,
        count(*) OVER () AS total
      FROM flow_triggers t
      WHERE t.tenant_id = ${tenantId}
        AND (${namespace}::text IS NULL OR t.namespace = ${namespace} OR t.namespace LIKE ${namespace} || '.%')
        AND (${flowId}::text IS NULL OR t.flow_id = ${flowId})
      ORDER BY t.namespace, t.flow_id, t.trigger_id
      LIMIT ${size} OFFSET ${offset}`;
    const total = rows.length > 0 ? Number(rows[0].total) : await this.count(tenantId, namespace, flowId);
    return { results: rows.map(toRecord), total };
  }

  /**
   * Enables or disables a trigger. Enabling a schedule evaluates it afresh, so
   * the dates it missed while disabled do not fire.
   */
  async setDisabled(key: TriggerKey, disabled: boolean): Promise<TriggerStateRecord> {
    const { count } = await this.db.flowTriggerState.updateMany({
      where: key,
      data: disabled ? { disabled: true } : { disabled: false },
    });
    if (count === 0) throw new TriggerNotFound(key.namespace, key.flowId, key.triggerId);
    if (!disabled) {
      await this.db.flowTriggerState.updateMany({
        where: { ...key, scheduleSpec: { not: null } },
        data: { nextDate: NOT_EVALUATED, pending: true, lockHolder: null, lockExpiresAt: null },
      });
    }
    return this.get(key);
  }

  /** Drops a lease, so any scheduler may claim the trigger at once. */
  async unlock(key: TriggerKey): Promise<TriggerStateRecord> {
    const { count } = await this.db.flowTriggerState.updateMany({ where: key, data: { lockHolder: null, lockExpiresAt: null } });
    if (count === 0) throw new TriggerNotFound(key.namespace, key.flowId, key.triggerId);
    return this.get(key);
  }

  private async count(tenantId: string, namespace: string | null, flowId: string | null): Promise<number> {
    const rows = await this.db.$queryRaw<{ total: bigint }[]>`
      SELECT count(*) AS total FROM flow_triggers t
      WHERE t.tenant_id = ${tenantId}
        AND (${namespace}::text IS NULL OR t.namespace = ${namespace} OR t.namespace LIKE ${namespace} || '.%')
        AND (${flowId}::text IS NULL OR t.flow_id = ${flowId})`;
    return Number(rows[0]?.total ?? 0);
  }
}

function toRecord(row: TriggerRow): TriggerStateRecord {
  return {
    tenantId: row.tenant_id,
    namespace: row.namespace,
    flowId: row.flow_id,
    triggerId: row.trigger_id,
    kind: row.kind,
    nextDate: row.pending ? null : row.next_date,
    pending: row.pending,
    lastDate: row.last_date,
    lastExecutionId: row.last_execution_id,
    lastExecutionState: row.last_execution_state,
    lockHolder: row.lock_holder,
    lockExpiresAt: row.lock_expires_at,
    disabled: row.disabled,
    updatedAt: row.updated_at,
  };
}
