import type {
  BackfillProgress,
  BackfillStep,
  DeclaredTrigger,
  NewExecution,
  RecordPage,
  TriggerKey,
  TriggerSearchQuery,
  TriggerStateRecord,
} from '@lanner/model';
import { AlreadyExists, NotFound, TriggerNotFound } from '../errors';
import { Prisma } from '../generated/prisma/client';
import { type Db, type DbOrTx, labelsOf, storedJson } from '../prisma';
import { executionColumns, newExecutionRow } from './execution.repository';

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
  /**
   * The flow revision the evaluation read: when given, the row is written only
   * while it is still the flow's latest revision and the trigger is not
   * disabled (an evaluation made ahead of its due date is written at the date,
   * after the flow may have changed).
   */
  readonly flowRevision?: number;
  /**
   * The trigger's `stopAfter` states: when given, the row is written only while
   * its last execution is in none of them (it may have ended since the evaluation).
   */
  readonly stopAfter?: readonly string[];
  /** A step of the trigger's backfill, written only if the backfill is still where it was claimed. */
  readonly backfill?: {
    readonly claimed: Pick<BackfillProgress, 'id' | 'currentDate'>;
    readonly step: Pick<BackfillStep, 'currentDate' | 'dueAt'>;
    /** The executions of the step, inserted only with it. */
    readonly executions: readonly NewExecution[];
  };
}

/** What `advance` wrote: nothing when the row moved on since the claim; else the executions it inserted. */
export interface TriggerAdvanceOutcome {
  readonly written: boolean;
  readonly inserted: readonly NewExecution[];
}

/** A new backfill of a schedule: its range, and what its executions carry. */
export interface NewBackfill {
  readonly id: string;
  readonly start: Date;
  readonly end: Date;
  readonly inputs: Record<string, unknown>;
  readonly labels: Record<string, string>;
}

/** One trigger's identity as a single string, to match the rows a batch statement wrote. */
function keyOf(key: Pick<TriggerStateRecord, 'tenantId' | 'namespace' | 'flowId' | 'triggerId'>): string {
  return JSON.stringify([key.tenantId, key.namespace, key.flowId, key.triggerId]);
}

/** Instance states of the liveness registry whose leases another scheduler takes over at once. */
const DEAD_INSTANCE_STATES = Prisma.sql`('NOT_RUNNING', 'TERMINATED')`;

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
  b_id: string | null;
  b_start: Date | null;
  b_end: Date | null;
  b_cursor: Date | null;
  b_paused: boolean | null;
  b_done: number | null;
  b_due_at: Date | null;
  b_inputs: Prisma.JsonValue | null;
  b_labels: Prisma.JsonValue | null;
  b_created_at: Date | null;
}

/** What each read of a trigger row adds: its last execution's state and its backfill. */
const TRIGGER_EXTRAS = Prisma.sql`
  (SELECT e.state::text FROM executions e WHERE e.id = t.last_execution_id) AS last_execution_state,
  b.id::text AS b_id, b.start_date AS b_start, b.end_date AS b_end, b.cursor_date AS b_cursor, b.paused AS b_paused,
  b.done AS b_done, b.due_at AS b_due_at, b.inputs AS b_inputs, b.labels AS b_labels, b.created_at AS b_created_at`;
const BACKFILL_JOIN = Prisma.sql`LEFT JOIN trigger_backfills b
  ON b.tenant_id = t.tenant_id AND b.namespace = t.namespace AND b.flow_id = t.flow_id AND b.trigger_id = t.trigger_id`;

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
   * date passed (or a backfill step due), not disabled, no live lease. A lease
   * held by a scheduler instance the liveness registry shows dead
   * (NOT_RUNNING, TERMINATED) counts as no lease: it is taken over at once,
   * not at its expiry. One statement per kind of due (next date, backfill step)
   * with SKIP LOCKED, so concurrent schedulers never claim the same row.
   *
   * With `aheadMs`, schedules (not polling triggers) whose next date falls in
   * the next `aheadMs` are claimed too, so a scheduler can evaluate them before
   * their date and write them at it; their lease runs `leaseMs` past that horizon.
   */
  async claimDue(holder: string, now: Date, leaseMs: number, limit: number, aheadMs = 0): Promise<TriggerStateRecord[]> {
    const horizon = new Date(now.getTime() + aheadMs);
    const expiresAt = new Date(horizon.getTime() + leaseMs);
    const leaseFree = (alias: string) => Prisma.sql`(${Prisma.raw(alias)}.lock_expires_at IS NULL
      OR ${Prisma.raw(alias)}.lock_expires_at <= ${now}
      OR ${Prisma.raw(alias)}.lock_holder IN (SELECT id FROM service_instances WHERE state::text IN ${DEAD_INSTANCE_STATES}))`;
    const bySchedule = await this.db.$queryRaw<TriggerRow[]>`
      WITH claimed AS (
        UPDATE flow_triggers AS u SET lock_holder = ${holder}, lock_expires_at = ${expiresAt}
        FROM (
          SELECT tenant_id, namespace, flow_id, trigger_id FROM flow_triggers AS f
          WHERE next_date <= ${horizon} AND (next_date <= ${now} OR schedule_spec IS NOT NULL)
            AND NOT disabled AND ${leaseFree('f')}
          ORDER BY next_date
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        ) AS due
        WHERE u.tenant_id = due.tenant_id AND u.namespace = due.namespace AND u.flow_id = due.flow_id AND u.trigger_id = due.trigger_id
        RETURNING u.*
      )
      SELECT t.*, ${TRIGGER_EXTRAS} FROM claimed t ${BACKFILL_JOIN}`;
    const byBackfill = await this.db.$queryRaw<TriggerRow[]>`
      WITH claimed AS (
        UPDATE flow_triggers AS u SET lock_holder = ${holder}, lock_expires_at = ${expiresAt}
        FROM (
          SELECT f.tenant_id, f.namespace, f.flow_id, f.trigger_id
          FROM trigger_backfills AS s JOIN flow_triggers AS f
            ON f.tenant_id = s.tenant_id AND f.namespace = s.namespace AND f.flow_id = s.flow_id AND f.trigger_id = s.trigger_id
          WHERE s.due_at <= ${now} AND NOT s.paused AND NOT f.disabled AND ${leaseFree('f')}
          ORDER BY s.due_at
          LIMIT ${limit}
          FOR UPDATE OF f SKIP LOCKED
        ) AS due
        WHERE u.tenant_id = due.tenant_id AND u.namespace = due.namespace AND u.flow_id = due.flow_id AND u.trigger_id = due.trigger_id
        RETURNING u.*
      )
      SELECT t.*, ${TRIGGER_EXTRAS} FROM claimed t ${BACKFILL_JOIN}`;
    return [...bySchedule, ...byBackfill].map(toRecord);
  }

  /**
   * Writes an evaluation of the row `holder` claimed (as `claimed`), and inserts the executions it fired, in one
   * transaction. Not written, writing nothing, when the row changed since (another
   * scheduler took an expired lease and advanced it, the flow changed or was
   * deleted): each date fires once.
   */
  async advance(claimed: TriggerStateRecord, holder: string, advance: TriggerAdvance): Promise<TriggerAdvanceOutcome> {
    const [outcome] = await this.advanceMany(holder, [{ claimed, advance }]);
    return outcome;
  }

  /**
   * `advance` for several claimed rows: each row is written only if it is as it
   * was claimed, independently of the others. The plain advances (no backfill
   * step, no stop) and their executions are one statement for the whole batch
   * (its own transaction: a conditional UPDATE whose written rows feed the
   * INSERT of their executions); when some rows are not plain, they are written
   * one by one with it in one transaction. Outcomes in the order of `items`.
   */
  async advanceMany(
    holder: string,
    items: readonly { readonly claimed: TriggerStateRecord; readonly advance: TriggerAdvance }[],
  ): Promise<TriggerAdvanceOutcome[]> {
    if (items.length === 0) return [];
    const isPlain = ({ advance }: (typeof items)[number]) => advance.backfill === undefined && advance.disable !== true;
    if (items.every(isPlain)) {
      const written = await TriggerRepository.writePlainAdvances(this.db, holder, items);
      return items.map(({ claimed, advance }) =>
        written.has(keyOf(claimed)) ? { written: true, inserted: advance.executions } : { written: false, inserted: [] },
      );
    }
    return this.db.$transaction(
      async (tx) => {
        const outcomes: TriggerAdvanceOutcome[] = new Array(items.length);
        const plain: number[] = [];
        for (const [index, item] of items.entries()) {
          if (isPlain(item)) plain.push(index);
          else outcomes[index] = await TriggerRepository.writeAdvance(tx, item.claimed, holder, item.advance);
        }
        const written = await TriggerRepository.writePlainAdvances(
          tx,
          holder,
          plain.map((index) => items[index]),
        );
        for (const index of plain) {
          const { claimed, advance } = items[index];
          outcomes[index] = written.has(keyOf(claimed))
            ? { written: true, inserted: advance.executions }
            : { written: false, inserted: [] };
        }
        // The plain rows' executions were inserted with their rows; the others' here.
        const rows = items.flatMap(({ claimed }, index) =>
          isPlain(items[index]) ? [] : outcomes[index].inserted.map((execution) => newExecutionRow(claimed.tenantId, execution)),
        );
        if (rows.length > 0) await tx.execution.createMany({ data: rows });
        return outcomes;
      },
      // A batch of a few hundred rows on a loaded machine can take longer than Prisma's 5 s default.
      { timeout: 60_000, maxWait: 30_000 },
    );
  }

  /**
   * The conditional write of many plain advances and the insert of their
   * executions, in one statement: a row is written only while `holder` holds
   * it and its next date is still the claimed one (and, when the advance names
   * them, while its flow revision is the latest, the trigger is enabled and its
   * last execution is in no `stopAfter` state); the executions of the rows
   * written are inserted. The batch travels as one JSON parameter per table, so
   * the statement's size does not grow its parameter count. Returns the keys of
   * the rows written.
   */
  private static async writePlainAdvances(
    db: DbOrTx,
    holder: string,
    items: readonly { readonly claimed: TriggerStateRecord; readonly advance: TriggerAdvance }[],
  ): Promise<Set<string>> {
    if (items.length === 0) return new Set();
    const advances = items.map(({ claimed, advance }) => ({
      tenant_id: claimed.tenantId,
      namespace: claimed.namespace,
      flow_id: claimed.flowId,
      trigger_id: claimed.triggerId,
      claimed_next_date: claimed.pending ? NOT_EVALUATED : claimed.nextDate,
      next_date: advance.nextDate,
      last_date: advance.lastDate ?? null,
      last_execution_id: advance.executions.at(-1)?.id ?? null,
      flow_revision: advance.flowRevision ?? null,
      stop_after: advance.stopAfter !== undefined && advance.stopAfter.length > 0 ? advance.stopAfter : null,
    }));
    const executions = items.flatMap(({ claimed, advance }) =>
      advance.executions.map((execution) => ({
        ...executionColumns(claimed.tenantId, execution),
        trigger_id: claimed.triggerId,
      })),
    );
    const unwritten = await db.$queryRaw<{ tenant_id: string; namespace: string; flow_id: string; trigger_id: string }[]>`
      WITH v AS (
        SELECT * FROM jsonb_to_recordset(${JSON.stringify(advances)}::jsonb) AS v(tenant_id text, namespace text, flow_id text,
          trigger_id text, claimed_next_date timestamptz, next_date timestamptz, last_date timestamptz, last_execution_id text,
          flow_revision int, stop_after text[])
      ), advanced AS (
        UPDATE flow_triggers AS t SET
          next_date = v.next_date, pending = false, lock_holder = NULL, lock_expires_at = NULL,
          last_date = COALESCE(v.last_date, t.last_date),
          last_execution_id = COALESCE(v.last_execution_id, t.last_execution_id),
          updated_at = CURRENT_TIMESTAMP
        FROM v
        WHERE t.tenant_id = v.tenant_id AND t.namespace = v.namespace AND t.flow_id = v.flow_id AND t.trigger_id = v.trigger_id
          AND t.lock_holder = ${holder} AND t.next_date IS NOT DISTINCT FROM v.claimed_next_date
          AND (v.flow_revision IS NULL OR (NOT t.disabled AND NOT EXISTS (
            SELECT 1 FROM flows f WHERE f.tenant_id = v.tenant_id AND f.namespace = v.namespace AND f.flow_id = v.flow_id
              AND f.revision > v.flow_revision)))
          AND (v.stop_after IS NULL OR NOT EXISTS (
            SELECT 1 FROM executions e WHERE e.id = t.last_execution_id AND e.state::text = ANY (v.stop_after)))
        RETURNING t.tenant_id, t.namespace, t.flow_id, t.trigger_id
      ), inserted AS (
        INSERT INTO executions (id, tenant_id, namespace, flow_id, flow_revision, state, state_histories, inputs, labels, trigger,
          parent_execution_id, parent_task_run_id, updated_at)
        SELECT e.id, e.tenant_id, e.namespace, e.flow_id, e.flow_revision, e.state::execution_state, e.state_histories, e.inputs,
          e.labels, e.trigger, e.parent_execution_id, e.parent_task_run_id, CURRENT_TIMESTAMP
        FROM jsonb_to_recordset(${JSON.stringify(executions)}::jsonb) AS e(id text, tenant_id text, namespace text, flow_id text,
          trigger_id text, flow_revision int, state text, state_histories jsonb, inputs jsonb, labels jsonb, trigger jsonb,
          parent_execution_id text, parent_task_run_id text)
        JOIN advanced a
          ON a.tenant_id = e.tenant_id AND a.namespace = e.namespace AND a.flow_id = e.flow_id AND a.trigger_id = e.trigger_id
        RETURNING 1
      )
      SELECT v.tenant_id, v.namespace, v.flow_id, v.trigger_id FROM v
      WHERE NOT EXISTS (SELECT 1 FROM advanced a
        WHERE a.tenant_id = v.tenant_id AND a.namespace = v.namespace AND a.flow_id = v.flow_id AND a.trigger_id = v.trigger_id)`;
    const notWritten = new Set(
      unwritten.map((row) =>
        keyOf({ tenantId: row.tenant_id, namespace: row.namespace, flowId: row.flow_id, triggerId: row.trigger_id }),
      ),
    );
    return new Set(items.map(({ claimed }) => keyOf(claimed)).filter((key) => !notWritten.has(key)));
  }

  /**
   * Drops the leases `holder` took on `claimed` rows it will not write (a
   * scheduler stopping with evaluations made ahead of their dates, or a write
   * refused because the flow changed since): each row still held as claimed
   * is free for any scheduler's next claim, which evaluates it afresh.
   */
  async releaseLeases(holder: string, claimed: readonly TriggerStateRecord[]): Promise<number> {
    if (claimed.length === 0) return 0;
    const rows = claimed.map((row) => ({
      tenant_id: row.tenantId,
      namespace: row.namespace,
      flow_id: row.flowId,
      trigger_id: row.triggerId,
      claimed_next_date: row.pending ? NOT_EVALUATED : row.nextDate,
    }));
    return this.db.$executeRaw`
      UPDATE flow_triggers AS t SET lock_holder = NULL, lock_expires_at = NULL
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        AS v(tenant_id text, namespace text, flow_id text, trigger_id text, claimed_next_date timestamptz)
      WHERE t.tenant_id = v.tenant_id AND t.namespace = v.namespace AND t.flow_id = v.flow_id AND t.trigger_id = v.trigger_id
        AND t.lock_holder = ${holder} AND t.next_date IS NOT DISTINCT FROM v.claimed_next_date`;
  }

  /** One row's conditional write; the executions to insert are returned, not inserted. */
  private static async writeAdvance(
    tx: DbOrTx,
    claimed: TriggerStateRecord,
    holder: string,
    advance: TriggerAdvance,
  ): Promise<TriggerAdvanceOutcome> {
    const key = {
      tenantId: claimed.tenantId,
      namespace: claimed.namespace,
      flowId: claimed.flowId,
      triggerId: claimed.triggerId,
    };
    const claimedNextDate = claimed.pending ? NOT_EVALUATED : claimed.nextDate;
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
    if (count === 0) return { written: false, inserted: [] };
    const executions = [...advance.executions];
    const backfill = advance.backfill;
    if (backfill !== undefined) {
      // Paused, deleted or replaced since the claim: the step is dropped (the next claim sees the change).
      const stepped = await tx.triggerBackfill.updateMany({
        where: { ...key, id: backfill.claimed.id, currentDate: backfill.claimed.currentDate, paused: false },
        data: {
          currentDate: backfill.step.currentDate,
          dueAt: backfill.step.dueAt,
          done: { increment: backfill.executions.length },
        },
      });
      if (stepped.count > 0) executions.push(...backfill.executions);
    }
    return { written: true, inserted: executions };
  }

  /**
   * Keeps the lease `holder` took on the row (as `claimed`) until `until`: a
   * polling trigger stays leased while its evaluation runs on a worker, so no
   * scheduler evaluates it again meanwhile. False when the row changed since.
   */
  async holdLease(claimed: TriggerStateRecord, holder: string, until: Date): Promise<boolean> {
    const { count } = await this.db.flowTriggerState.updateMany({
      where: {
        tenantId: claimed.tenantId,
        namespace: claimed.namespace,
        flowId: claimed.flowId,
        triggerId: claimed.triggerId,
        lockHolder: holder,
        nextDate: claimed.pending ? NOT_EVALUATED : claimed.nextDate,
      },
      data: { lockExpiresAt: until },
    });
    return count === 1;
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
      SELECT t.*, ${TRIGGER_EXTRAS}
      FROM flow_triggers t ${BACKFILL_JOIN}
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
      SELECT t.*, ${TRIGGER_EXTRAS},
        count(*) OVER () AS total
      FROM flow_triggers t ${BACKFILL_JOIN}
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

  /**
   * Starts a backfill of the trigger, due at once. A finished one is
   * replaced; one still running or paused is AlreadyExists (delete it first).
   */
  async createBackfill(key: TriggerKey, backfill: NewBackfill, now: Date): Promise<TriggerStateRecord> {
    await this.db.$transaction(async (tx) => {
      const trigger = await tx.flowTriggerState.findUnique({
        where: { tenantId_namespace_flowId_triggerId: key },
        include: { backfill: true },
      });
      if (trigger === null) throw new TriggerNotFound(key.namespace, key.flowId, key.triggerId);
      const existing = trigger.backfill;
      if (existing !== null && (existing.paused || existing.dueAt !== null)) {
        throw new AlreadyExists('backfill of trigger', `${key.namespace}.${key.flowId}.${key.triggerId}`);
      }
      const fields = {
        id: backfill.id,
        startDate: backfill.start,
        endDate: backfill.end,
        currentDate: backfill.start,
        paused: false,
        done: 0,
        dueAt: now,
        inputs: backfill.inputs as Prisma.InputJsonValue,
        labels: backfill.labels as Prisma.InputJsonValue,
        createdAt: now,
      };
      await tx.triggerBackfill.upsert({
        where: { tenantId_namespace_flowId_triggerId: key },
        create: { ...key, ...fields },
        update: fields,
      });
    });
    return this.get(key);
  }

  /** Pauses a running backfill (a step being evaluated now is dropped); NotFound when none runs. */
  async pauseBackfill(key: TriggerKey): Promise<TriggerStateRecord> {
    const { count } = await this.db.triggerBackfill.updateMany({
      where: { ...key, paused: false, dueAt: { not: null } },
      data: { paused: true, dueAt: null },
    });
    if (count === 0) throw new NotFound('running backfill of trigger', `${key.namespace}.${key.flowId}.${key.triggerId}`);
    return this.get(key);
  }

  /** Resumes a paused backfill from the date it had reached, due at `now`; NotFound when none is paused. */
  async resumeBackfill(key: TriggerKey, now: Date): Promise<TriggerStateRecord> {
    const { count } = await this.db.triggerBackfill.updateMany({
      where: { ...key, paused: true },
      data: { paused: false, dueAt: now },
    });
    if (count === 0) throw new NotFound('paused backfill of trigger', `${key.namespace}.${key.flowId}.${key.triggerId}`);
    return this.get(key);
  }

  /** Deletes the trigger's backfill, running or not: the dates it had not reached never fire. */
  async deleteBackfill(key: TriggerKey): Promise<TriggerStateRecord> {
    const { count } = await this.db.triggerBackfill.deleteMany({ where: key });
    if (count === 0) throw new NotFound('backfill of trigger', `${key.namespace}.${key.flowId}.${key.triggerId}`);
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
    backfill:
      row.b_id === null || row.b_start === null || row.b_end === null || row.b_cursor === null || row.b_created_at === null
        ? null
        : {
            id: row.b_id,
            start: row.b_start,
            end: row.b_end,
            currentDate: row.b_cursor,
            paused: row.b_paused === true,
            done: Number(row.b_done ?? 0),
            dueAt: row.b_due_at,
            inputs: (row.b_inputs ?? {}) as Record<string, unknown>,
            labels: labelsOf(row.b_labels),
            createdAt: row.b_created_at,
          },
  };
}
