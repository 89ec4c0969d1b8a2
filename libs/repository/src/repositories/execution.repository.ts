import type {
  ExecutionChanges,
  StoredJson,
  ExecutionRecord,
  ExecutionRecordState,
  ExecutionSearchQuery,
  ExecutionStats,
  ExecutionStatsQuery,
  ExecutionWithTaskRuns,
  NewExecution,
  RecordPage,
  TaskRunAttemptRecord,
  TaskRunRecord,
  TaskRunRecordState,
  TaskRunWrite,
} from '@lanner/model';
import type { Pool } from 'pg';
import { AlreadyExists, ConcurrentModification, ExecutionNotFound, InvalidRecord } from '../errors';
import type { Execution, Prisma, TaskRun, TaskRunAttempt } from '../generated/prisma/client';
import {
  type Db,
  type DbOrTx,
  historiesColumn,
  historiesOf,
  jsonColumn,
  labelsOf,
  PG_UNIQUE_VIOLATION,
  prismaErrorCode,
  storedJson,
  UNIQUE_VIOLATION,
} from '../prisma';
import { BatchedCalls } from '../batched-calls';
import { queryExecutionStats } from './execution-stats.query';

/**
 * A new execution as `createIfLatest` inserted it, and whether maintenance mode was on
 * in the insert's snapshot: an execution inserted with it off may be started from this
 * row without reading it (an insert that began after maintenance was entered sees it on).
 */
export interface CreatedExecution {
  readonly execution: ExecutionRecord;
  readonly maintenance: boolean;
}

/** What the executor reads before applying an event: the row and its state-machine data. */
export interface ExecutorStateRecord {
  readonly execution: ExecutionRecord;
  /** The state machine's whole value as the executor stored it; null until it first handled the execution. */
  readonly stateData: StoredJson | null;
}

/** A task run the executor stores: its row, and the state machine's own value of it (`machine_data`). */
export type ExecutorTaskRunWrite = TaskRunWrite & { readonly machineData?: StoredJson };

/**
 * What the executor stores after applying events: the row's changes, the new version, the
 * state machine's value of the execution, and the task runs that changed, each with its own
 * value. From stored state format 3 `stateData` holds no task runs: the reads put the task
 * runs' `machine_data` back under `taskRuns`.
 */
export interface ExecutorStateWrite extends Omit<ExecutionChanges, 'taskRuns'> {
  /** The state machine's version after the change; must be above the version read. */
  readonly version: number;
  readonly stateData: StoredJson;
  readonly taskRuns?: readonly ExecutorTaskRunWrite[];
}

/** One execution's part of a group write: its write under the version it was read at. */
export interface ExecutorGroupWriteItem {
  readonly tenantId: string;
  readonly executionId: string;
  readonly expectedVersion: number;
  readonly write: ExecutorStateWrite;
  /**
   * When given and the write is stored, the answer carries the execution as `get` reads it right
   * after the write (from the same statement), unless its JSON (row and task runs) is longer than
   * this many bytes.
   */
  readonly readBackUpTo?: number;
}

/** What a group write did: each execution's outcome, and the executions read back (stored ones that asked, within their bound). */
export interface ExecutorGroupWriteResult {
  readonly outcomes: Map<string, ExecutorGroupWriteOutcome>;
  readonly readBack: Map<string, ExecutionWithTaskRuns>;
}

/**
 * What became of one execution of a group write: stored, or not, and why
 * (`conflict`: another writer stored it since the version read; `gone`: deleted;
 * `moved`: a task-run id given belongs to another execution).
 */
export type ExecutorGroupWriteOutcome = 'stored' | 'conflict' | 'gone' | 'moved';

const WITH_TASK_RUNS = {
  taskRuns: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], include: { attempts: { orderBy: { attempt: 'asc' } } } },
} satisfies Prisma.ExecutionInclude;

/** The most new executions one INSERT writes. */
const MAX_CREATES_PER_STATEMENT = 200;

/**
 * New executions go at once while they come slower than 80 a second (behind a
 * statement in flight they go together anyway); from that rate on, the first of
 * a moment waits 5 ms for others, so a busy api writes a few per INSERT instead
 * of about one: 5 ms beside the hundreds a request waits at that load.
 */
const CREATE_WINDOWS = { quietMs: 0, atLoadMs: 5, fromCallsPerSecond: 80 } as const;

/** Executions with their task runs and attempts, per tenant, with optimistic versioning. */
/** Where an execution's files live: its tenant and its storage folder's parts. */
export interface ExecutionFilesOwner {
  readonly tenantId: string;
  readonly namespace: string;
  readonly flowId: string;
  readonly id: string;
}

export class ExecutionRepository {
  private readonly latestCreates = new BatchedCalls<Record<string, unknown>, CreatedExecution | undefined>(
    (rows) => this.createAllIfLatest(rows),
    MAX_CREATES_PER_STATEMENT,
    CREATE_WINDOWS,
  );

  /** `pool` is the one under `db`: `get` and `createIfLatest` run on it directly. */
  constructor(
    private readonly db: Db,
    private readonly pool: Pool,
  ) {}

  async create(tenantId: string, execution: NewExecution): Promise<ExecutionRecord> {
    try {
      const row = await this.db.execution.create({ data: newExecutionRow(tenantId, execution) });
      return toExecutionRecord(row);
    } catch (error) {
      if (prismaErrorCode(error) === UNIQUE_VIOLATION) throw new AlreadyExists('execution', execution.id);
      throw error;
    }
  }

  /**
   * Creates the execution only while its `flowRevision` is still the flow's latest
   * revision (no newer one saved, no delete since), for a caller that knows a
   * revision from before and need not read it again. `undefined` when a newer
   * revision exists (nothing written); AlreadyExists as `create`. Calls that arrive
   * while one is in flight are written together by one statement. The answer says
   * whether maintenance mode was on in the insert's snapshot (see CreatedExecution).
   */
  async createIfLatest(tenantId: string, execution: NewExecution): Promise<CreatedExecution | undefined> {
    try {
      return await this.latestCreates.call(executionColumns(tenantId, execution));
    } catch (error) {
      // Alone (BatchedCalls runs each call of a refused batch again by itself): this id is taken.
      if ((error as { code?: unknown }).code === PG_UNIQUE_VIOLATION) throw new AlreadyExists('execution', execution.id);
      throw error;
    }
  }

  private async createAllIfLatest(rows: readonly Record<string, unknown>[]): Promise<(CreatedExecution | undefined)[]> {
    const { rows: created } = await this.pool.query<ExecutionRow & { maintenance: boolean }>(CREATE_IF_LATEST_SQL, [
      JSON.stringify(rows),
    ]);
    const byId = new Map(
      created.map((row) => [row.id, { execution: toExecutionRecord(executionOfRow(row)), maintenance: row.maintenance }]),
    );
    return rows.map((row) => byId.get(row['id'] as string));
  }

  async get(tenantId: string, executionId: string): Promise<ExecutionWithTaskRuns> {
    // One statement: one snapshot of the row, its task runs and their attempts, so a reader never sees
    // task runs newer than the execution state (e.g. a restarted attempt under a FAILED row). The api
    // reads this on every change of a followed execution; on pg directly, without a transaction.
    const { rows } = await this.pool.query<ExecutionRow>(GET_EXECUTION_SQL, [executionId, tenantId]);
    const row = rows[0];
    if (row === undefined) throw new ExecutionNotFound(executionId);
    return executionWithTaskRunsOf(row);
  }

  /**
   * Applies `changes` only if the stored version is still `expectedVersion`,
   * and bumps it; task runs in `changes` are written in the same transaction.
   * ConcurrentModification when another writer got there first.
   */
  async update(
    tenantId: string,
    executionId: string,
    expectedVersion: number,
    changes: ExecutionChanges,
  ): Promise<ExecutionWithTaskRuns> {
    return this.db.$transaction(async (tx) => {
      const { count } = await tx.execution.updateMany({
        where: { id: executionId, tenantId, version: expectedVersion },
        data: {
          version: { increment: 1 },
          state: changes.state,
          stateHistories: changes.stateHistories === undefined ? undefined : historiesColumn(changes.stateHistories),
          outputs: jsonColumn(changes.outputs),
          labels: changes.labels,
          startedAt: changes.startedAt,
          endedAt: changes.endedAt,
        },
      });
      if (count === 0) {
        const exists = await tx.execution.count({ where: { id: executionId, tenantId } });
        if (exists === 0) throw new ExecutionNotFound(executionId);
        throw new ConcurrentModification('execution', executionId, expectedVersion);
      }
      for (const taskRun of changes.taskRuns ?? []) await writeTaskRun(tx, tenantId, executionId, taskRun);
      const row = await tx.execution.findFirstOrThrow({ where: { id: executionId, tenantId }, include: WITH_TASK_RUNS });
      return { ...toExecutionRecord(row), taskRuns: row.taskRuns.map(toTaskRunRecord) };
    });
  }

  /** The executor's read: the row (without task runs) and the stored state-machine data. */
  async getExecutorState(tenantId: string, executionId: string): Promise<ExecutorStateRecord> {
    const { rows } = await this.pool.query<ExecutorRow>(EXECUTOR_STATE_SQL, [executionId, tenantId]);
    const row = rows[0];
    if (row === undefined) throw new ExecutionNotFound(executionId);
    return {
      execution: toExecutionRecord(executionOfRow(row)),
      stateData: row.state_data === null ? null : storedJson(row.state_data),
    };
  }

  /**
   * `getExecutorState` of a batch's executions, and whether the cluster is in
   * maintenance mode, in one statement on pg: the flag is read in the same
   * snapshot as the rows, so an execution accepted after maintenance was
   * entered is read together with the flag on. An execution that does not
   * exist (or not in the tenant asked) is absent from the answer.
   */
  async getExecutorStatesAndMaintenance(
    items: readonly { readonly tenantId: string; readonly executionId: string }[],
  ): Promise<{ readonly states: Map<string, ExecutorStateRecord>; readonly maintenance: boolean }> {
    const tenantOf = new Map(items.map((item) => [item.executionId, item.tenantId]));
    const { rows } = await this.pool.query<ExecutorStateRow>(EXECUTOR_STATES_SQL, [[...tenantOf.keys()]]);
    const states = new Map<string, ExecutorStateRecord>();
    for (const row of rows) {
      if (row.id === null || tenantOf.get(row.id) !== row.tenant_id) continue;
      states.set(row.id, {
        execution: toExecutionRecord(executionOfRow(row)),
        stateData: row.state_data === null ? null : storedJson(row.state_data),
      });
    }
    return { states, maintenance: rows[0]?.maintenance === true };
  }

  /**
   * The executor's write: only if the stored version is still `expectedVersion`,
   * sets the row to `write.version` (the state machine's own counter, so the
   * version the API shows is the one a restart request names), stores the
   * state-machine data and upserts the task runs given, in one statement on pg
   * (atomic; no read before it, no transaction round trips).
   * ConcurrentModification when another writer got there first.
   */
  async storeExecutorState(
    tenantId: string,
    executionId: string,
    expectedVersion: number,
    write: ExecutorStateWrite,
  ): Promise<void> {
    if (write.version <= expectedVersion) {
      throw new InvalidRecord(
        `execution '${executionId}': version ${write.version} must be above the version read (${expectedVersion})`,
      );
    }
    const statement = executorWriteStatement(tenantId, executionId, expectedVersion, write);
    const { rows } = await this.pool.query<{ updated: number }>(statement.text, statement.values);
    if ((rows[0]?.updated ?? 0) > 0) return;
    // Nothing was written; say why (a second statement only on this path).
    const why = await this.pool.query<{ present: boolean; moved: string | null }>(
      `SELECT EXISTS (SELECT 1 FROM executions WHERE id = $1 AND tenant_id = $2) AS present,
        (SELECT id FROM task_runs WHERE id = ANY($3::text[]) AND execution_id <> $1 LIMIT 1) AS moved`,
      [executionId, tenantId, statement.taskRunIds],
    );
    if (!why.rows[0]?.present) throw new ExecutionNotFound(executionId);
    // A task-run id is unique across executions; never move one between them.
    if (why.rows[0].moved !== null) throw new AlreadyExists('task run', why.rows[0].moved);
    throw new ConcurrentModification('execution', executionId, expectedVersion);
  }

  /**
   * The executor's group write: several executions' writes (each one at most
   * once) in one statement on pg, each under its own optimistic version. Each is
   * stored or not on its own (never half): the answer says which, and why not;
   * a second statement runs only when one was not stored. A stored item that
   * asked (`readBackUpTo`) comes back as `get` would read it after the write,
   * composed by the same statement, so that reader need not read it.
   */
  async storeExecutorStates(items: readonly ExecutorGroupWriteItem[]): Promise<ExecutorGroupWriteResult> {
    const outcomes = new Map<string, ExecutorGroupWriteOutcome>();
    const readBack = new Map<string, ExecutionWithTaskRuns>();
    if (items.length === 0) return { outcomes, readBack };
    const seen = new Set<string>();
    for (const item of items) {
      if (seen.has(item.executionId)) {
        throw new InvalidRecord(`execution '${item.executionId}' appears twice in one group write`);
      }
      seen.add(item.executionId);
      if (item.write.version <= item.expectedVersion) {
        throw new InvalidRecord(
          `execution '${item.executionId}': version ${item.write.version} must be above the version read (${item.expectedVersion})`,
        );
      }
    }
    const statement = executorGroupWriteStatement(items);
    const { rows } = await this.pool.query<GroupWriteRow>(statement.text, statement.values);
    const updated = new Set(rows.map((row) => row.updated_id));
    for (const row of rows) if (typeof row.id === 'string') readBack.set(row.updated_id, executionWithTaskRunsOf(row));
    const missed = items.filter((item) => !updated.has(item.executionId));
    for (const item of items) if (updated.has(item.executionId)) outcomes.set(item.executionId, 'stored');
    if (missed.length === 0) return { outcomes, readBack };
    const why = await this.pool.query<{ id: string; present: boolean; moved: boolean }>(
      `SELECT w.id, EXISTS (SELECT 1 FROM executions e WHERE e.id = w.id AND e.tenant_id = w.tenant_id) AS present,
        EXISTS (SELECT 1 FROM unnest($3::text[], $4::text[]) AS r (id, execution_id)
          JOIN task_runs x ON x.id = r.id WHERE r.execution_id = w.id AND x.execution_id <> w.id) AS moved
      FROM unnest($1::text[], $2::text[]) AS w (id, tenant_id)`,
      [
        missed.map((item) => item.executionId),
        missed.map((item) => item.tenantId),
        statement.taskRuns.map((run) => run.id),
        statement.taskRuns.map((run) => run.executionId),
      ],
    );
    for (const row of why.rows) outcomes.set(row.id, !row.present ? 'gone' : row.moved ? 'moved' : 'conflict');
    return { outcomes, readBack };
  }

  async search(tenantId: string, query: ExecutionSearchQuery): Promise<RecordPage<ExecutionRecord>> {
    const where: Prisma.ExecutionWhereInput = {
      tenantId,
      namespace: query.namespace,
      flowId: query.flowId,
      state: query.state,
      ...(query.namespacePrefix === undefined
        ? {}
        : { OR: [{ namespace: query.namespacePrefix }, { namespace: { startsWith: `${query.namespacePrefix}.` } }] }),
      createdAt: query.createdFrom || query.createdTo ? { gte: query.createdFrom, lt: query.createdTo } : undefined,
      AND: Object.entries(query.labels ?? {}).map(([key, value]) => ({ labels: { path: [key], equals: value } })),
    };
    const size = Math.max(1, Math.floor(query.size));
    const [rows, total] = await Promise.all([
      this.db.execution.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
        skip: (Math.max(1, Math.floor(query.page)) - 1) * size,
        take: size,
      }),
      this.db.execution.count({ where }),
    ]);
    return { results: rows.map(toExecutionRecord), total };
  }

  /** The dashboard's aggregates over the executions created in a period, computed by the database. */
  stats(tenantId: string, query: ExecutionStatsQuery): Promise<ExecutionStats> {
    return queryExecutionStats(this.db, tenantId, query);
  }

  /**
   * Flow concurrency (`concurrency.limit`): may this execution take a slot of its
   * flow? Decided under a per-flow lock against the executions that hold one
   * (RUNNING, PAUSED, RESTARTED, KILLING, RETRYING), so two executions created at
   * the same moment on different partitions never both take the last slot. An
   * admitted execution's row is moved to RUNNING at once (state and history; the
   * executor stores its full state right after), so the next decision counts it;
   * a refused one is moved to QUEUED when `queueWhenFull`, so the end that frees
   * a slot finds it (`releaseConcurrencySlot`). Asking again is harmless: an
   * execution already holding a slot is admitted, an ended one refused.
   */
  async admitUnderConcurrencyLimit(tenantId: string, request: ConcurrencyAdmission): Promise<boolean> {
    return this.admitUnderLimit(tenantId, request, (state) => !TERMINAL_EXECUTION_STATES.includes(state));
  }

  /**
   * Flow concurrency for a restart: may this ended (FAILED, KILLED, WARNING)
   * execution take a slot of its flow to run again? Decided like a new
   * execution's admission, under the same per-flow lock and count: admitted,
   * the row is moved to RUNNING at once; refused with `queueWhenFull`, to QUEUED,
   * so the end that frees a slot finds it. The executor stores the restarted
   * state right after. Asking again (a redelivered restart) is harmless: a row
   * already moved to RUNNING is admitted, one already QUEUED is decided anew.
   * The caller checks first that the restart applies (state and version).
   */
  async admitRestartUnderConcurrencyLimit(tenantId: string, request: ConcurrencyAdmission): Promise<boolean> {
    return this.admitUnderLimit(tenantId, request, (state) => RESTARTABLE_OR_QUEUED_STATES.includes(state));
  }

  /**
   * The admission both share: under the flow's lock, an execution already holding a
   * slot is admitted, one whose state `mayAsk` refuses is not, and the others take a
   * free slot (moved to RUNNING) or, refused with `queueWhenFull`, wait in QUEUED.
   */
  private async admitUnderLimit(
    tenantId: string,
    request: ConcurrencyAdmission,
    mayAsk: (state: ExecutionRecordState) => boolean,
  ): Promise<boolean> {
    return this.db.$transaction(async (tx) => {
      await lockFlowConcurrency(tx, tenantId, request.namespace, request.flowId);
      const own = await tx.execution.findFirst({
        where: { id: request.executionId, tenantId },
        select: { state: true, stateHistories: true },
      });
      if (own === null) throw new ExecutionNotFound(request.executionId);
      if (SLOT_HOLDING_STATES.includes(own.state)) return true;
      if (!mayAsk(own.state)) return false;
      const move = async (state: ExecutionRecordState): Promise<void> => {
        const histories = [...historiesOf<ExecutionRecordState>(own.stateHistories), { state, date: request.at }];
        await tx.execution.updateMany({
          where: { id: request.executionId, tenantId },
          data: { state, stateHistories: historiesColumn(histories) },
        });
      };
      const holders = await countSlotHolders(tx, tenantId, request.namespace, request.flowId, request.executionId);
      if (holders < request.limit) {
        await move('RUNNING');
        return true;
      }
      if (request.queueWhenFull && own.state !== 'QUEUED') await move('QUEUED');
      return false;
    });
  }

  /**
   * An execution of a flow with a concurrency limit ended, and its end is
   * stored: under the flow's lock, the oldest QUEUED executions that the free
   * slots admit are returned, for the executor to ask their admission again.
   * An admission decided before the end was stored left its execution QUEUED, so
   * this finds it; repeating the call (a redelivered message) returns those
   * still QUEUED, so none is forgotten.
   */
  async releaseConcurrencySlot(tenantId: string, release: ConcurrencyRelease): Promise<ExecutionRecord[]> {
    return this.db.$transaction(async (tx) => {
      await lockFlowConcurrency(tx, tenantId, release.namespace, release.flowId);
      const holders = await countSlotHolders(tx, tenantId, release.namespace, release.flowId, release.executionId);
      const free = release.limit - holders;
      if (free <= 0) return [];
      const queued = await tx.execution.findMany({
        where: { tenantId, namespace: release.namespace, flowId: release.flowId, state: 'QUEUED' },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        take: free,
      });
      return queued.map(toExecutionRecord);
    });
  }

  /** The tenants that have executions not yet in a terminal state (ids only), for the executor's rebuild after a restart. */
  async listTenantsWithUnfinished(): Promise<string[]> {
    const rows = await this.db.execution.findMany({
      where: { state: { notIn: TERMINAL_EXECUTION_STATES } },
      distinct: ['tenantId'],
      select: { tenantId: true },
      orderBy: { tenantId: 'asc' },
    });
    return rows.map((row) => row.tenantId);
  }

  /**
   * Ended executions whose files are still in internal storage and that ended before
   * `cutoff`, oldest first, across tenants: what the storage retention purges next.
   */
  async endedWithFilesBefore(cutoff: Date, limit: number): Promise<ExecutionFilesOwner[]> {
    return this.db.execution.findMany({
      where: { endedAt: { lt: cutoff }, filesPurgedAt: null, state: { in: TERMINAL_EXECUTION_STATES } },
      orderBy: [{ endedAt: 'asc' }, { id: 'asc' }],
      take: Math.max(1, Math.floor(limit)),
      select: { tenantId: true, namespace: true, flowId: true, id: true },
    });
  }

  /** Records that the execution's files were purged from internal storage. */
  async markFilesPurged(tenantId: string, executionId: string, at: Date): Promise<void> {
    await this.db.execution.updateMany({ where: { tenantId, id: executionId }, data: { filesPurgedAt: at } });
  }

  /** Executions not yet in a terminal state, for the executor to rebuild its pending work after a restart. */
  async listUnfinished(tenantId: string): Promise<ExecutionRecord[]> {
    const rows = await this.db.execution.findMany({
      where: { tenantId, state: { notIn: TERMINAL_EXECUTION_STATES } },
      orderBy: { createdAt: 'asc' },
    });
    return rows.map(toExecutionRecord);
  }
}

const TERMINAL_EXECUTION_STATES: ExecutionRecordState[] = ['SUCCESS', 'WARNING', 'FAILED', 'KILLED', 'CANCELLED', 'RETRIED'];
/** The states in which an execution holds one of its flow's concurrency slots. */
const SLOT_HOLDING_STATES: ExecutionRecordState[] = ['RUNNING', 'PAUSED', 'RESTARTED', 'KILLING', 'RETRYING'];

/** A restart is decided from these: the ended states a restart applies to, or QUEUED once it waits for a slot. */
const RESTARTABLE_OR_QUEUED_STATES: ExecutionRecordState[] = ['FAILED', 'KILLED', 'WARNING', 'QUEUED'];

/** What `admitUnderConcurrencyLimit` decides on. */
export interface ConcurrencyAdmission {
  readonly namespace: string;
  readonly flowId: string;
  readonly executionId: string;
  /** The flow's `concurrency.limit`. */
  readonly limit: number;
  /** `behavior: QUEUE`: a refused execution waits in QUEUED for a free slot. */
  readonly queueWhenFull: boolean;
  /** When the decision is made, for the state history. */
  readonly at: Date;
}

/** What `releaseConcurrencySlot` needs: the execution that ended and its flow's limit. */
export interface ConcurrencyRelease {
  readonly namespace: string;
  readonly flowId: string;
  readonly executionId: string;
  readonly limit: number;
}

/** One transaction-scoped lock per tenant and flow: admissions and releases of a flow take turns. */
async function lockFlowConcurrency(tx: DbOrTx, tenantId: string, namespace: string, flowId: string): Promise<void> {
  const key = JSON.stringify([tenantId, namespace, flowId]);
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('lanner.flow-concurrency'), hashtext(${key}))`;
}

function countSlotHolders(
  tx: DbOrTx,
  tenantId: string,
  namespace: string,
  flowId: string,
  exceptExecutionId: string,
): Promise<number> {
  return tx.execution.count({
    where: { tenantId, namespace, flowId, state: { in: SLOT_HOLDING_STATES }, id: { not: exceptExecutionId } },
  });
}

async function writeTaskRun(tx: DbOrTx, tenantId: string, executionId: string, taskRun: TaskRunWrite): Promise<void> {
  const fields = {
    taskId: taskRun.taskId,
    parentTaskRunId: taskRun.parentTaskRunId,
    value: taskRun.value,
    state: taskRun.state,
    stateHistories: historiesColumn(taskRun.stateHistories),
    outputs: jsonColumn(taskRun.outputs),
    workerQueueId: taskRun.workerQueueId,
    workerSelector: jsonColumn(taskRun.workerSelector),
    dispatchReason: taskRun.dispatchReason,
    error: taskRun.error,
  };
  const existing = await tx.taskRun.findUnique({ where: { id: taskRun.id }, select: { executionId: true } });
  if (existing !== null && existing.executionId !== executionId) {
    // A task-run id is unique across executions; never move one between them.
    throw new AlreadyExists('task run', taskRun.id);
  }
  await tx.taskRun.upsert({
    where: { id: taskRun.id },
    create: { id: taskRun.id, tenantId, executionId, ...fields },
    update: fields,
  });
  for (const attempt of taskRun.attempts) {
    const attemptFields = {
      workerId: attempt.workerId,
      workerQueueId: attempt.workerQueueId,
      state: attempt.state,
      outputs: jsonColumn(attempt.outputs),
      error: jsonColumn(attempt.error),
      startedAt: attempt.startedAt,
      endedAt: attempt.endedAt,
    };
    await tx.taskRunAttempt.upsert({
      where: { taskRunId_attempt: { taskRunId: taskRun.id, attempt: attempt.attempt } },
      create: { taskRunId: taskRun.id, attempt: attempt.attempt, ...attemptFields },
      update: attemptFields,
    });
  }
}

const jsonText = (value: StoredJson | undefined): string | null =>
  value === undefined || value === null ? null : JSON.stringify(value);

/** The last write of each key wins, as when they were written one after the other. */
function lastOfEach<T>(items: readonly T[], keyOf: (item: T) => string): T[] {
  return [...new Map(items.map((item) => [keyOf(item), item])).values()];
}

// The statements that store an execution's task runs and attempts share these parts (one
// execution at a time, or a group of executions in one statement): the same columns and the
// same answer to a row that is already there.
const TASK_RUN_INSERT = `INSERT INTO task_runs (id, tenant_id, execution_id, task_id, parent_task_run_id, value, state, state_histories, outputs,
      worker_queue_id, worker_selector, dispatch_reason, error, machine_data, updated_at)`;
const TASK_RUN_UPSERT = `ON CONFLICT (id) DO UPDATE SET task_id = EXCLUDED.task_id, parent_task_run_id = EXCLUDED.parent_task_run_id,
      value = EXCLUDED.value, state = EXCLUDED.state, state_histories = EXCLUDED.state_histories, outputs = EXCLUDED.outputs,
      worker_queue_id = EXCLUDED.worker_queue_id, worker_selector = EXCLUDED.worker_selector,
      dispatch_reason = EXCLUDED.dispatch_reason, error = EXCLUDED.error,
      machine_data = coalesce(EXCLUDED.machine_data, task_runs.machine_data), updated_at = now()`;
const ATTEMPT_INSERT = `INSERT INTO task_run_attempts (id, task_run_id, attempt, worker_id, worker_queue_id, state, outputs, error, started_at, ended_at)
    SELECT gen_random_uuid(), a.task_run_id, a.attempt, a.worker_id, a.worker_queue_id, a.state::task_run_state, a.outputs,
      a.error, a.started_at, a.ended_at`;
const ATTEMPT_UPSERT = `ON CONFLICT (task_run_id, attempt) DO UPDATE SET worker_id = EXCLUDED.worker_id, worker_queue_id = EXCLUDED.worker_queue_id,
      state = EXCLUDED.state, outputs = EXCLUDED.outputs, error = EXCLUDED.error, started_at = EXCLUDED.started_at,
      ended_at = EXCLUDED.ended_at`;

/**
 * The executor's write as one statement: the row's update under the optimistic version (and only if no
 * task-run id given belongs to another execution), then the task runs and their attempts upserted only
 * when the row was. Answers `updated` 1 or 0.
 */
function executorWriteStatement(
  tenantId: string,
  executionId: string,
  expectedVersion: number,
  write: ExecutorStateWrite,
): { text: string; values: unknown[]; taskRunIds: string[] } {
  const taskRuns = lastOfEach(write.taskRuns ?? [], (taskRun) => taskRun.id);
  const attempts = lastOfEach(
    taskRuns.flatMap((taskRun) => taskRun.attempts.map((attempt) => ({ taskRunId: taskRun.id, ...attempt }))),
    (attempt) => `${attempt.attempt}:${attempt.taskRunId}`,
  );
  const taskRunIds = taskRuns.map((taskRun) => taskRun.id);
  const values: unknown[] = [executionId, tenantId, expectedVersion, write.version, taskRunIds];
  const param = (value: unknown, cast = ''): string => `$${values.push(value)}${cast}`;
  const sets = ['version = $4', 'updated_at = now()'];
  const set = (column: string, value: unknown, cast = ''): void => {
    if (value !== undefined) sets.push(`${column} = ${param(value, cast)}`);
  };
  set('state', write.state, '::execution_state');
  set(
    'state_histories',
    write.stateHistories === undefined ? undefined : JSON.stringify(historiesColumn(write.stateHistories)),
    '::jsonb',
  );
  if (write.outputs !== undefined) set('outputs', jsonText(write.outputs), '::jsonb');
  set('labels', write.labels === undefined ? undefined : JSON.stringify(write.labels), '::jsonb');
  set('started_at', write.startedAt, '::timestamptz');
  set('ended_at', write.endedAt, '::timestamptz');
  set('error', write.error, '::text');
  set('state_data', jsonText(write.stateData), '::jsonb');
  const runs = [
    param(
      taskRuns.map((run) => run.taskId),
      '::text[]',
    ),
    param(
      taskRuns.map((run) => run.parentTaskRunId),
      '::text[]',
    ),
    param(
      taskRuns.map((run) => run.value),
      '::text[]',
    ),
    param(
      taskRuns.map((run) => run.state),
      '::text[]',
    ),
    param(
      taskRuns.map((run) => JSON.stringify(historiesColumn(run.stateHistories))),
      '::jsonb[]',
    ),
    param(
      taskRuns.map((run) => jsonText(run.outputs)),
      '::jsonb[]',
    ),
    param(
      taskRuns.map((run) => run.workerQueueId),
      '::text[]',
    ),
    param(
      taskRuns.map((run) => jsonText(run.workerSelector)),
      '::jsonb[]',
    ),
    param(
      taskRuns.map((run) => run.dispatchReason),
      '::text[]',
    ),
    param(
      taskRuns.map((run) => run.error),
      '::text[]',
    ),
    param(
      taskRuns.map((run) => jsonText(run.machineData)),
      '::jsonb[]',
    ),
  ];
  const tries = [
    param(
      attempts.map((attempt) => attempt.taskRunId),
      '::text[]',
    ),
    param(
      attempts.map((attempt) => attempt.attempt),
      '::int[]',
    ),
    param(
      attempts.map((attempt) => attempt.workerId),
      '::text[]',
    ),
    param(
      attempts.map((attempt) => attempt.workerQueueId),
      '::text[]',
    ),
    param(
      attempts.map((attempt) => attempt.state),
      '::text[]',
    ),
    param(
      attempts.map((attempt) => jsonText(attempt.outputs)),
      '::jsonb[]',
    ),
    param(
      attempts.map((attempt) => jsonText(attempt.error)),
      '::jsonb[]',
    ),
    param(
      attempts.map((attempt) => attempt.startedAt?.toISOString() ?? null),
      '::timestamptz[]',
    ),
    param(
      attempts.map((attempt) => attempt.endedAt?.toISOString() ?? null),
      '::timestamptz[]',
    ),
  ];
  const text = `WITH updated AS (
    UPDATE executions SET ${sets.join(', ')}
    WHERE id = $1 AND tenant_id = $2 AND version = $3
      AND NOT EXISTS (SELECT 1 FROM task_runs x WHERE x.id = ANY($5::text[]) AND x.execution_id <> $1)
    RETURNING id
  ), runs AS (
    ${TASK_RUN_INSERT}
    SELECT r.id, $2, $1, r.task_id, r.parent_task_run_id, r.value, r.state::task_run_state, r.state_histories, r.outputs,
      r.worker_queue_id, r.worker_selector, r.dispatch_reason, r.error, r.machine_data, now()
    FROM unnest($5::text[], ${runs.join(', ')})
      AS r (id, task_id, parent_task_run_id, value, state, state_histories, outputs, worker_queue_id, worker_selector, dispatch_reason, error,
        machine_data)
    WHERE EXISTS (SELECT 1 FROM updated)
    ${TASK_RUN_UPSERT}
    RETURNING id
  ), tries AS (
    ${ATTEMPT_INSERT}
    FROM unnest(${tries.join(', ')})
      AS a (task_run_id, attempt, worker_id, worker_queue_id, state, outputs, error, started_at, ended_at)
    WHERE EXISTS (SELECT 1 FROM updated)
    ${ATTEMPT_UPSERT}
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM updated)::int AS updated, (SELECT count(*) FROM runs)::int AS runs, (SELECT count(*) FROM tries)::int AS tries`;
  return { text, values, taskRunIds };
}

/** A group write's row of one execution: every column the executor writes must be given. */
function groupRow(item: ExecutorGroupWriteItem) {
  const { write } = item;
  const missing = (['state', 'stateHistories', 'labels'] as const).filter((field) => write[field] === undefined);
  if (missing.length > 0) {
    throw new InvalidRecord(`execution '${item.executionId}': a group write needs ${missing.join(', ')}`);
  }
  return {
    id: item.executionId,
    tenantId: item.tenantId,
    expected: item.expectedVersion,
    version: write.version,
    state: write.state as string,
    stateHistories: JSON.stringify(historiesColumn(write.stateHistories ?? [])),
    outputs: jsonText(write.outputs ?? null),
    labels: JSON.stringify(write.labels),
    startedAt: write.startedAt?.toISOString() ?? null,
    endedAt: write.endedAt?.toISOString() ?? null,
    error: write.error ?? null,
    stateData: jsonText(write.stateData),
    readBackUpTo: item.readBackUpTo ?? null,
  };
}

/**
 * The group write's end when an item asks to be read back: what `get` would read after the write
 * (the task runs and attempts written as they are now, the others as they were, by `taskRunsJson`),
 * for each updated execution that asked and fits its bound.
 */
function readBackTail(): string {
  return `, back AS (
    SELECT * FROM updated WHERE read_back_up_to IS NOT NULL
  ), back_runs AS (
    -- What get reads after this statement: the task runs it wrote as they are now, the others as they were.
    SELECT * FROM runs WHERE execution_id IN (SELECT id FROM back)
    UNION ALL
    SELECT ${taskRunReadColumns('t')} FROM task_runs t JOIN back b ON t.execution_id = b.id
    WHERE NOT EXISTS (SELECT 1 FROM runs x WHERE x.id = t.id)
  ), back_tries AS (
    SELECT * FROM tries WHERE task_run_id IN (SELECT id FROM back_runs)
    UNION ALL
    SELECT ${attemptReadColumns('a')} FROM task_run_attempts a JOIN back_runs t ON a.task_run_id = t.id
    WHERE NOT EXISTS (SELECT 1 FROM tries x WHERE x.task_run_id = a.task_run_id AND x.attempt = a.attempt)
  ), read_back AS (
    SELECT b.*, ${taskRunsJson('b.id', 'back_runs', 'back_tries')} AS task_runs FROM back b
  )
  SELECT u.id AS updated_id, rb.*
  FROM updated u LEFT JOIN read_back rb ON rb.id = u.id
    AND octet_length(rb.task_runs::text) + octet_length(concat(rb.state_histories, rb.inputs, rb.outputs, rb.labels, rb.trigger))
      <= rb.read_back_up_to`;
}

/**
 * Several executions' writes as one statement: each row's update under its own optimistic version
 * (and only if none of its task-run ids belongs to another execution), then the task runs and
 * attempts of the rows updated. Answers the ids updated.
 */
function executorGroupWriteStatement(items: readonly ExecutorGroupWriteItem[]): {
  text: string;
  values: unknown[];
  taskRuns: readonly (ExecutorTaskRunWrite & { executionId: string })[];
} {
  const rows = items.map(groupRow);
  // The read-back part is planned only for a group that has an item asking for it.
  const readBack = items.some((item) => item.readBackUpTo !== undefined);
  const taskRuns = items.flatMap((item) =>
    lastOfEach(item.write.taskRuns ?? [], (taskRun) => taskRun.id).map((run) => ({ ...run, executionId: item.executionId })),
  );
  const attempts = lastOfEach(
    taskRuns.flatMap((taskRun) =>
      taskRun.attempts.map((attempt) => ({ taskRunId: taskRun.id, executionId: taskRun.executionId, ...attempt })),
    ),
    (attempt) => `${attempt.attempt}:${attempt.taskRunId}`,
  );
  const values: unknown[] = [];
  const column = <T>(list: readonly T[], pick: (item: T) => unknown, cast: string): string =>
    `$${values.push(list.map(pick))}::${cast}[]`;
  const w = [
    column(rows, (row) => row.id, 'text'),
    column(rows, (row) => row.tenantId, 'text'),
    column(rows, (row) => row.expected, 'int'),
    column(rows, (row) => row.version, 'int'),
    column(rows, (row) => row.state, 'text'),
    column(rows, (row) => row.stateHistories, 'jsonb'),
    column(rows, (row) => row.outputs, 'jsonb'),
    column(rows, (row) => row.labels, 'jsonb'),
    column(rows, (row) => row.startedAt, 'timestamptz'),
    column(rows, (row) => row.endedAt, 'timestamptz'),
    column(rows, (row) => row.error, 'text'),
    column(rows, (row) => row.stateData, 'jsonb'),
    column(rows, (row) => row.readBackUpTo, 'int'),
  ];
  const r = [
    column(taskRuns, (run) => run.id, 'text'),
    column(taskRuns, (run) => run.executionId, 'text'),
    column(taskRuns, (run) => run.taskId, 'text'),
    column(taskRuns, (run) => run.parentTaskRunId, 'text'),
    column(taskRuns, (run) => run.value, 'text'),
    column(taskRuns, (run) => run.state, 'text'),
    column(taskRuns, (run) => JSON.stringify(historiesColumn(run.stateHistories)), 'jsonb'),
    column(taskRuns, (run) => jsonText(run.outputs), 'jsonb'),
    column(taskRuns, (run) => run.workerQueueId, 'text'),
    column(taskRuns, (run) => jsonText(run.workerSelector), 'jsonb'),
    column(taskRuns, (run) => run.dispatchReason, 'text'),
    column(taskRuns, (run) => run.error, 'text'),
    column(taskRuns, (run) => jsonText(run.machineData), 'jsonb'),
  ];
  const a = [
    column(attempts, (attempt) => attempt.taskRunId, 'text'),
    column(attempts, (attempt) => attempt.executionId, 'text'),
    column(attempts, (attempt) => attempt.attempt, 'int'),
    column(attempts, (attempt) => attempt.workerId, 'text'),
    column(attempts, (attempt) => attempt.workerQueueId, 'text'),
    column(attempts, (attempt) => attempt.state, 'text'),
    column(attempts, (attempt) => jsonText(attempt.outputs), 'jsonb'),
    column(attempts, (attempt) => jsonText(attempt.error), 'jsonb'),
    column(attempts, (attempt) => attempt.startedAt?.toISOString() ?? null, 'timestamptz'),
    column(attempts, (attempt) => attempt.endedAt?.toISOString() ?? null, 'timestamptz'),
  ];
  const text = `WITH w AS (
    SELECT * FROM unnest(${w.join(', ')})
      AS w (id, tenant_id, expected, version, state, state_histories, outputs, labels, started_at, ended_at, error, state_data,
        read_back_up_to)
  ), r AS (
    SELECT * FROM unnest(${r.join(', ')})
      AS r (id, execution_id, task_id, parent_task_run_id, value, state, state_histories, outputs, worker_queue_id,
        worker_selector, dispatch_reason, error, machine_data)
  ), updated AS (
    UPDATE executions e SET version = w.version, updated_at = now(), state = w.state::execution_state,
      state_histories = w.state_histories, outputs = w.outputs, labels = w.labels, started_at = w.started_at,
      ended_at = w.ended_at, error = w.error, state_data = w.state_data
    FROM w
    WHERE e.id = w.id AND e.tenant_id = w.tenant_id AND e.version = w.expected
      AND NOT EXISTS (SELECT 1 FROM r JOIN task_runs x ON x.id = r.id WHERE r.execution_id = w.id AND x.execution_id <> w.id)
    RETURNING ${executionColumnsOf('e')}, w.read_back_up_to
  ), runs AS (
    ${TASK_RUN_INSERT}
    SELECT r.id, u.tenant_id, r.execution_id, r.task_id, r.parent_task_run_id, r.value, r.state::task_run_state,
      r.state_histories, r.outputs, r.worker_queue_id, r.worker_selector, r.dispatch_reason, r.error, r.machine_data, now()
    FROM r JOIN updated u ON u.id = r.execution_id
    ${TASK_RUN_UPSERT}
    RETURNING ${taskRunReadColumns()}
  ), tries AS (
    ${ATTEMPT_INSERT}
    FROM unnest(${a.join(', ')})
      AS a (task_run_id, execution_id, attempt, worker_id, worker_queue_id, state, outputs, error, started_at, ended_at)
    JOIN updated u ON u.id = a.execution_id
    ${ATTEMPT_UPSERT}
    RETURNING ${attemptReadColumns()}
  )${readBack ? readBackTail() : '\n  SELECT u.id AS updated_id FROM updated u'}`;
  return { text, values, taskRuns };
}

/** An execution's columns as `get` reads them (all but the executor's state data), of the row named `alias`. */
function executionColumnsOf(alias: string): string {
  return `${alias}.id, ${alias}.tenant_id, ${alias}.namespace, ${alias}.flow_id, ${alias}.flow_revision, ${alias}.state::text AS state,
  ${alias}.state_histories, ${alias}.inputs, ${alias}.outputs, ${alias}.labels, ${alias}.trigger, ${alias}.version,
  ${alias}.parent_execution_id, ${alias}.parent_task_run_id, ${alias}.created_at, ${alias}.updated_at, ${alias}.started_at,
  ${alias}.ended_at, ${alias}.error`;
}

/** The columns of a task run and of an attempt that `taskRunsJson` reads (of the table named `alias`, when given). */
const taskRunReadColumns = (alias = ''): string =>
  ['id', 'tenant_id', 'execution_id', 'task_id', 'parent_task_run_id', 'value', 'state', 'state_histories', 'outputs']
    .concat(['worker_queue_id', 'worker_selector', 'dispatch_reason', 'error', 'created_at', 'updated_at'])
    .map((column) => (alias === '' ? column : `${alias}.${column}`))
    .join(', ');
const attemptReadColumns = (alias = ''): string =>
  ['id', 'task_run_id', 'attempt', 'worker_id', 'worker_queue_id', 'state', 'outputs', 'error', 'started_at', 'ended_at']
    .map((column) => (alias === '' ? column : `${alias}.${column}`))
    .join(', ');

/**
 * The task runs of the execution `executionId` (an SQL expression) with their attempts, as one JSON array
 * (`TaskRunJson`), in the order `get` gives them; `runs` and `attempts` are the tables (or CTEs) to read them from.
 */
function taskRunsJson(executionId: string, runs: string, attempts: string): string {
  return `coalesce((
    SELECT json_agg(json_build_object(
      'id', t.id, 'tenantId', t.tenant_id, 'executionId', t.execution_id, 'taskId', t.task_id,
      'parentTaskRunId', t.parent_task_run_id, 'value', t.value, 'state', t.state, 'stateHistories', t.state_histories,
      'outputs', t.outputs, 'workerQueueId', t.worker_queue_id, 'workerSelector', t.worker_selector,
      'dispatchReason', t.dispatch_reason, 'error', t.error, 'createdAt', t.created_at, 'updatedAt', t.updated_at,
      'attempts', coalesce((
        SELECT json_agg(json_build_object(
          'id', a.id, 'taskRunId', a.task_run_id, 'attempt', a.attempt, 'workerId', a.worker_id,
          'workerQueueId', a.worker_queue_id, 'state', a.state, 'outputs', a.outputs, 'error', a.error,
          'startedAt', a.started_at, 'endedAt', a.ended_at) ORDER BY a.attempt)
        FROM ${attempts} a WHERE a.task_run_id = t.id), '[]'::json)
    ) ORDER BY t.created_at, t.id)
    FROM ${runs} t WHERE t.execution_id = ${executionId}), '[]'::json)`;
}

/** The execution's columns (all but the executor's state data) and its task runs with their attempts, as JSON. */
const GET_EXECUTION_SQL = `SELECT ${executionColumnsOf('e')},
  ${taskRunsJson('e.id', 'task_runs', 'task_run_attempts')} AS task_runs
FROM executions e WHERE e.id = $1 AND e.tenant_id = $2`;

/**
 * The maintenance flag (false when never entered) and the executions of $1 with their state data: one row even when
 * none of them exists. `(VALUES (1)) LEFT JOIN` keeps the flag's row; the ids are the primary key's.
 */
/**
 * The executor's stored state as it reads it: from format 3 the document holds no task runs, and
 * each task run's own value (`task_runs.machine_data`) goes back under `taskRuns`, in any order.
 * A document that holds its task runs (formats 1 and 2) is read as it is.
 */
const EXECUTOR_STATE_DATA = `CASE WHEN e.state_data IS NULL OR jsonb_typeof(e.state_data) <> 'object' OR e.state_data ? 'taskRuns'
    THEN e.state_data
    ELSE e.state_data || jsonb_build_object('taskRuns', coalesce((SELECT jsonb_agg(t.machine_data) FROM task_runs t
      WHERE t.execution_id = e.id AND t.machine_data IS NOT NULL), '[]'::jsonb)) END AS state_data`;

/** The executor's columns of an execution: the row (without task runs) and its stored state. */
const EXECUTOR_COLUMNS = `${executionColumnsOf('e')}, ${EXECUTOR_STATE_DATA}`;

const EXECUTOR_STATE_SQL = `SELECT ${EXECUTOR_COLUMNS} FROM executions e WHERE e.id = $1 AND e.tenant_id = $2`;

/** Whether maintenance mode is on, as an SQL expression read in the statement's snapshot. */
const MAINTENANCE_FLAG = 'coalesce((SELECT m.enabled FROM instance_maintenance m WHERE m.id = 1), false)';

const EXECUTOR_STATES_SQL = `SELECT ${MAINTENANCE_FLAG} AS maintenance,
  ${EXECUTOR_COLUMNS}
FROM (VALUES (1)) AS one(x) LEFT JOIN executions e ON e.id = ANY($1::text[])`;

/** New executions (`executionColumns` of each, a JSON array in $1), each inserted only if no flow revision newer than its own exists. */
const CREATE_IF_LATEST_SQL = `INSERT INTO executions (id, tenant_id, namespace, flow_id, flow_revision, state, state_histories, inputs,
    labels, trigger, parent_execution_id, parent_task_run_id, updated_at)
  SELECT e.id, e.tenant_id, e.namespace, e.flow_id, e.flow_revision, e.state::execution_state, e.state_histories, e.inputs,
    e.labels, e.trigger, e.parent_execution_id, e.parent_task_run_id, CURRENT_TIMESTAMP
  FROM jsonb_to_recordset($1::jsonb) AS e(id text, tenant_id text, namespace text, flow_id text, flow_revision int, state text,
    state_histories jsonb, inputs jsonb, labels jsonb, trigger jsonb, parent_execution_id text, parent_task_run_id text)
  WHERE NOT EXISTS (SELECT 1 FROM flows f WHERE f.tenant_id = e.tenant_id AND f.namespace = e.namespace
    AND f.flow_id = e.flow_id AND f.revision > e.flow_revision)
  RETURNING ${executionColumnsOf('executions')}, '[]'::json AS task_runs, ${MAINTENANCE_FLAG} AS maintenance`;

interface ExecutionRow {
  readonly id: string;
  readonly tenant_id: string;
  readonly namespace: string;
  readonly flow_id: string;
  readonly flow_revision: number;
  readonly state: Execution['state'];
  readonly state_histories: Prisma.JsonValue;
  readonly inputs: Prisma.JsonValue | null;
  readonly outputs: Prisma.JsonValue | null;
  readonly labels: Prisma.JsonValue | null;
  readonly trigger: Prisma.JsonValue | null;
  readonly version: number;
  readonly parent_execution_id: string | null;
  readonly parent_task_run_id: string | null;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly started_at: Date | null;
  readonly ended_at: Date | null;
  readonly error: string | null;
  readonly task_runs: TaskRunJson[];
}

/** A row of the group write's answer: an execution updated, with its columns and task runs when read back (else null or absent). */
type GroupWriteRow = { readonly updated_id: string } & (ExecutionRow | { readonly [column in keyof ExecutionRow]?: null });

/** A row of `EXECUTOR_STATES_SQL`: the flag, and an execution's columns (all null on the row of no execution). */
/** An execution's row as the executor reads it: its columns and its stored state. */
type ExecutorRow = Omit<ExecutionRow, 'task_runs'> & { readonly state_data: Prisma.JsonValue | null };

type ExecutorStateRow = { readonly maintenance: boolean } & ({ readonly id: null } | ExecutorRow);

/** A task run as the statement's JSON holds it: the columns by their field names, instants as ISO strings. */
type TaskRunJson = Omit<TaskRun, 'createdAt' | 'updatedAt'> & {
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly attempts: Array<Omit<TaskRunAttempt, 'startedAt' | 'endedAt'> & { startedAt: string | null; endedAt: string | null }>;
};

/** What `get` answers for a row of `GET_EXECUTION_SQL` (or a group write's execution read back). */
function executionWithTaskRunsOf(row: ExecutionRow): ExecutionWithTaskRuns {
  return {
    ...toExecutionRecord(executionOfRow(row)),
    taskRuns: row.task_runs.map((taskRun) => toTaskRunRecord(taskRunOfJson(taskRun))),
  };
}

function executionOfRow(row: Omit<ExecutionRow, 'task_runs'>): Execution {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    namespace: row.namespace,
    flowId: row.flow_id,
    flowRevision: row.flow_revision,
    state: row.state,
    stateHistories: row.state_histories,
    inputs: row.inputs,
    outputs: row.outputs,
    labels: row.labels,
    trigger: row.trigger,
    version: row.version,
    parentExecutionId: row.parent_execution_id,
    parentTaskRunId: row.parent_task_run_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    error: row.error,
    stateData: null,
    // Not read by this statement: nothing built from it looks at it.
    filesPurgedAt: null,
  };
}

const instant = (value: string | null): Date | null => (value === null ? null : new Date(value));

function taskRunOfJson(json: TaskRunJson): TaskRun & { attempts: TaskRunAttempt[] } {
  return {
    ...json,
    createdAt: new Date(json.createdAt),
    updatedAt: new Date(json.updatedAt),
    attempts: json.attempts.map((attempt) => ({
      ...attempt,
      startedAt: instant(attempt.startedAt),
      endedAt: instant(attempt.endedAt),
    })),
  };
}

/** The row of a new execution; the trigger repository inserts its executions in its own transaction with it. */
export function newExecutionRow(tenantId: string, execution: NewExecution): Prisma.ExecutionUncheckedCreateInput {
  return {
    id: execution.id,
    tenantId,
    namespace: execution.namespace,
    flowId: execution.flowId,
    flowRevision: execution.flowRevision,
    state: execution.state,
    stateHistories: historiesColumn(execution.stateHistories),
    inputs: jsonColumn(execution.inputs),
    labels: execution.labels ?? {},
    trigger: jsonColumn(execution.trigger),
    parentExecutionId: execution.parentExecutionId ?? null,
    parentTaskRunId: execution.parentTaskRunId ?? null,
  };
}

/**
 * A new execution's columns as SQL names with JSON values (dates as ISO
 * strings), for statements that insert many rows from one JSON parameter
 * (`jsonb_to_recordset`); the same columns as `newExecutionRow`.
 */
export function executionColumns(tenantId: string, execution: NewExecution): Record<string, unknown> {
  return {
    id: execution.id,
    tenant_id: tenantId,
    namespace: execution.namespace,
    flow_id: execution.flowId,
    flow_revision: execution.flowRevision,
    state: execution.state,
    state_histories: historiesColumn(execution.stateHistories),
    inputs: execution.inputs ?? null,
    labels: execution.labels ?? {},
    trigger: execution.trigger ?? null,
    parent_execution_id: execution.parentExecutionId ?? null,
    parent_task_run_id: execution.parentTaskRunId ?? null,
  };
}

function toExecutionRecord(row: Execution): ExecutionRecord {
  return {
    id: row.id,
    tenantId: row.tenantId,
    namespace: row.namespace,
    flowId: row.flowId,
    flowRevision: row.flowRevision,
    state: row.state,
    stateHistories: historiesOf<ExecutionRecordState>(row.stateHistories),
    inputs: storedJson(row.inputs),
    outputs: storedJson(row.outputs),
    labels: labelsOf(row.labels),
    trigger: storedJson(row.trigger),
    version: row.version,
    parentExecutionId: row.parentExecutionId,
    parentTaskRunId: row.parentTaskRunId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    startedAt: row.startedAt,
    endedAt: row.endedAt,
    error: row.error,
  };
}

function toTaskRunRecord(row: TaskRun & { attempts: TaskRunAttempt[] }): TaskRunRecord {
  return {
    id: row.id,
    executionId: row.executionId,
    taskId: row.taskId,
    parentTaskRunId: row.parentTaskRunId,
    value: row.value,
    state: row.state,
    stateHistories: historiesOf<TaskRunRecordState>(row.stateHistories),
    outputs: storedJson(row.outputs),
    workerQueueId: row.workerQueueId,
    workerSelector: storedJson(row.workerSelector),
    dispatchReason: row.dispatchReason,
    error: row.error,
    attempts: row.attempts.map(toAttemptRecord),
  };
}

function toAttemptRecord(row: TaskRunAttempt): TaskRunAttemptRecord {
  return {
    attempt: row.attempt,
    workerId: row.workerId,
    workerQueueId: row.workerQueueId,
    state: row.state,
    outputs: storedJson(row.outputs),
    error: storedJson(row.error),
    startedAt: row.startedAt,
    endedAt: row.endedAt,
  };
}
