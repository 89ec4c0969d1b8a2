import type { Db } from '../prisma';

/** One durable executor timer (a retry, a pause, a task timeout, a WaitFor iteration). */
export interface ExecutionTimerRecord {
  /** The state machine's timer id (unique across executions: it starts with the task-run id). */
  readonly id: string;
  readonly tenantId: string;
  readonly executionId: string;
  readonly taskRunId: string;
  /** The state machine's timer kind, e.g. `task-timeout`. */
  readonly kind: string;
  readonly attempt: number;
  readonly dueAt: Date;
}

interface DueTimerRow {
  id: string;
  tenant_id: string;
  execution_id: string;
  task_run_id: string;
  kind: string;
  attempt: number;
  due_at: Date;
}

/**
 * The executor's delay loop storage. Scheduling is idempotent on the timer id
 * (a redelivered event schedules the same timer again, harmlessly); due timers
 * are handed out under FOR UPDATE SKIP LOCKED, so several executors never fire
 * the same timer twice, and removed only once the caller fired them.
 */
export class TimerRepository {
  constructor(private readonly db: Db) {}

  async schedule(timer: ExecutionTimerRecord): Promise<void> {
    const fields = {
      tenantId: timer.tenantId,
      executionId: timer.executionId,
      taskRunId: timer.taskRunId,
      kind: timer.kind,
      attempt: timer.attempt,
      dueAt: timer.dueAt,
    };
    await this.db.executionTimer.upsert({ where: { id: timer.id }, create: { id: timer.id, ...fields }, update: fields });
  }

  /** Idempotent: an unknown or already fired timer is ignored. */
  async cancel(timerId: string): Promise<void> {
    await this.db.executionTimer.deleteMany({ where: { id: timerId } });
  }

  /** Timers of one execution, soonest first (for tests and the UI). */
  async listForExecution(tenantId: string, executionId: string): Promise<ExecutionTimerRecord[]> {
    const rows = await this.db.executionTimer.findMany({ where: { tenantId, executionId }, orderBy: { dueAt: 'asc' } });
    return rows.map((row) => ({
      id: row.id,
      tenantId: row.tenantId,
      executionId: row.executionId,
      taskRunId: row.taskRunId,
      kind: row.kind,
      attempt: row.attempt,
      dueAt: row.dueAt,
    }));
  }

  /**
   * Locks up to `limit` timers due at `now`, hands them to `fire` and deletes
   * them when it resolves. When `fire` throws the timers stay (and fire on a
   * later tick): a timer may fire twice, never zero times.
   * Returns how many timers fired.
   */
  async fireDue(now: Date, limit: number, fire: (timers: readonly ExecutionTimerRecord[]) => Promise<void>): Promise<number> {
    return this.db.$transaction(
      async (tx) => {
        const rows = await tx.$queryRaw<DueTimerRow[]>`
          SELECT id, tenant_id, execution_id, task_run_id, kind, attempt, due_at
          FROM execution_timers
          WHERE due_at <= ${now}
          ORDER BY due_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED`;
        if (rows.length === 0) return 0;
        await fire(
          rows.map((row) => ({
            id: row.id,
            tenantId: row.tenant_id,
            executionId: row.execution_id,
            taskRunId: row.task_run_id,
            kind: row.kind,
            attempt: row.attempt,
            dueAt: row.due_at,
          })),
        );
        await tx.executionTimer.deleteMany({ where: { id: { in: rows.map((row) => row.id) } } });
        return rows.length;
      },
      // Publishing the fired timers happens inside the transaction; give the queue time to answer.
      { timeout: 30_000, maxWait: 10_000 },
    );
  }
}
