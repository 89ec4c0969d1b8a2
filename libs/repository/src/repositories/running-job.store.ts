import type { RunningJobRecord } from '@lanner/model';
import type { RunningJob } from '../generated/prisma/client';
import { type Db, storedJson } from '../prisma';
import type { Prisma } from '../generated/prisma/client';

/**
 * The durable running-job store: a controller records a job here before it
 * sends it to a worker and removes it when the result is recorded. Unique on
 * task-run id + attempt, so a redelivered job is recorded once.
 */
export class RunningJobStore {
  constructor(private readonly db: Db) {}

  /** True if recorded now, false if that task run's attempt was already recorded (a redelivery). */
  async insert(job: RunningJobRecord): Promise<boolean> {
    const { count } = await this.db.runningJob.createMany({
      data: [
        {
          taskRunId: job.taskRunId,
          attempt: job.attempt,
          tenantId: job.tenantId,
          executionId: job.executionId,
          workerQueueId: job.workerQueueId,
          workerId: job.workerId,
          controllerInstanceId: job.controllerInstanceId,
          job: (job.job ?? {}) as Prisma.InputJsonValue,
          dispatchedAt: job.dispatchedAt,
        },
      ],
      // ON CONFLICT DO NOTHING: the unique key makes a redelivery a no-op.
      skipDuplicates: true,
    });
    return count === 1;
  }

  /** True if it was there. */
  async remove(taskRunId: string, attempt: number): Promise<boolean> {
    const { count } = await this.db.runningJob.deleteMany({ where: { taskRunId, attempt } });
    return count > 0;
  }

  async get(taskRunId: string, attempt: number): Promise<RunningJobRecord | null> {
    const row = await this.db.runningJob.findUnique({ where: { taskRunId_attempt: { taskRunId, attempt } } });
    return row === null ? null : toRunningJobRecord(row);
  }

  async listByController(controllerInstanceId: string): Promise<RunningJobRecord[]> {
    const rows = await this.db.runningJob.findMany({ where: { controllerInstanceId }, orderBy: { dispatchedAt: 'asc' } });
    return rows.map(toRunningJobRecord);
  }

  async listByWorker(workerId: string): Promise<RunningJobRecord[]> {
    const rows = await this.db.runningJob.findMany({ where: { workerId }, orderBy: { dispatchedAt: 'asc' } });
    return rows.map(toRunningJobRecord);
  }
}

function toRunningJobRecord(row: RunningJob): RunningJobRecord {
  return {
    taskRunId: row.taskRunId,
    attempt: row.attempt,
    tenantId: row.tenantId,
    executionId: row.executionId,
    workerQueueId: row.workerQueueId,
    workerId: row.workerId,
    controllerInstanceId: row.controllerInstanceId,
    job: storedJson(row.job),
    dispatchedAt: row.dispatchedAt,
  };
}
