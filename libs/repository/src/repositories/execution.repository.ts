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
import { AlreadyExists, ConcurrentModification, ExecutionNotFound, InvalidRecord } from '../errors';
import type { Execution, Prisma, TaskRun, TaskRunAttempt } from '../generated/prisma/client';
import {
  type Db,
  type DbOrTx,
  historiesColumn,
  historiesOf,
  jsonColumn,
  labelsOf,
  prismaErrorCode,
  storedJson,
  UNIQUE_VIOLATION,
} from '../prisma';
import { queryExecutionStats } from './execution-stats.query';

/** What the executor reads before applying an event: the row and its state-machine data. */
export interface ExecutorStateRecord {
  readonly execution: ExecutionRecord;
  /** The state machine's whole value as the executor stored it; null until it first handled the execution. */
  readonly stateData: StoredJson | null;
}

/** What the executor stores after applying events: the row's changes, the new version and the whole state. */
export interface ExecutorStateWrite extends ExecutionChanges {
  /** The state machine's version after the change; must be above the version read. */
  readonly version: number;
  readonly stateData: StoredJson;
}

const WITH_TASK_RUNS = {
  taskRuns: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], include: { attempts: { orderBy: { attempt: 'asc' } } } },
} satisfies Prisma.ExecutionInclude;

/** Executions with their task runs and attempts, per tenant, with optimistic versioning. */
export class ExecutionRepository {
  constructor(private readonly db: Db) {}

  async create(tenantId: string, execution: NewExecution): Promise<ExecutionRecord> {
    try {
      const row = await this.db.execution.create({
        data: {
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
        },
      });
      return toExecutionRecord(row);
    } catch (error) {
      if (prismaErrorCode(error) === UNIQUE_VIOLATION) throw new AlreadyExists('execution', execution.id);
      throw error;
    }
  }

  async get(tenantId: string, executionId: string): Promise<ExecutionWithTaskRuns> {
    // The row and its task runs are separate queries: one snapshot, so a reader never sees
    // task runs newer than the execution state (e.g. a restarted attempt under a FAILED row).
    const row = await this.db.$transaction(
      (tx) => tx.execution.findFirst({ where: { id: executionId, tenantId }, include: WITH_TASK_RUNS }),
      {
        isolationLevel: 'RepeatableRead',
      },
    );
    if (row === null) throw new ExecutionNotFound(executionId);
    return { ...toExecutionRecord(row), taskRuns: row.taskRuns.map(toTaskRunRecord) };
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
    const row = await this.db.execution.findFirst({ where: { id: executionId, tenantId } });
    if (row === null) throw new ExecutionNotFound(executionId);
    return { execution: toExecutionRecord(row), stateData: row.stateData === null ? null : storedJson(row.stateData) };
  }

  /**
   * The executor's write: only if the stored version is still `expectedVersion`,
   * sets the row to `write.version` (the state machine's own counter, so the
   * version the API shows is the one a restart request names), stores the
   * state-machine data and upserts the task runs given, in one transaction.
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
    await this.db.$transaction(async (tx) => {
      const { count } = await tx.execution.updateMany({
        where: { id: executionId, tenantId, version: expectedVersion },
        data: {
          version: write.version,
          state: write.state,
          stateHistories: write.stateHistories === undefined ? undefined : historiesColumn(write.stateHistories),
          outputs: jsonColumn(write.outputs),
          labels: write.labels,
          startedAt: write.startedAt,
          endedAt: write.endedAt,
          error: write.error,
          stateData: jsonColumn(write.stateData),
        },
      });
      if (count === 0) {
        const exists = await tx.execution.count({ where: { id: executionId, tenantId } });
        if (exists === 0) throw new ExecutionNotFound(executionId);
        throw new ConcurrentModification('execution', executionId, expectedVersion);
      }
      for (const taskRun of write.taskRuns ?? []) await writeTaskRun(tx, tenantId, executionId, taskRun);
    });
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
