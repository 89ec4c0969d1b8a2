import type { RunningJobRecord } from '@lanner/model';
import type { Pool } from 'pg';
import { BatchedCalls } from '../batched-calls';
import { WindowedJobWrites } from './running-job-writes';
import type { RunningJob } from '../generated/prisma/client';
import { type Db, storedJson } from '../prisma';

interface JobKey {
  readonly taskRunId: string;
  readonly attempt: number;
}

const keyOf = (job: JobKey): string => `${job.attempt}:${job.taskRunId}`;

/** A row a statement returns for each job it recorded or removed. */
interface KeyRow {
  readonly task_run_id: string;
  readonly attempt: number;
}

/** The keys as SQL row values `(task_run_id, attempt)`, and the parameters they refer to. */
function keyRows(keys: readonly JobKey[]): { rows: string[]; values: unknown[] } {
  const values: unknown[] = [];
  const rows = keys.map((key) => {
    const at = values.push(key.taskRunId, key.attempt) - 2;
    return `($${at + 1}::text, $${at + 2}::int)`;
  });
  return { rows, values };
}

/**
 * Each caller's answer: whether the statement returned its key. The same key
 * twice in one batch is answered true once, for the first caller.
 */
function answersPerKey(keys: readonly JobKey[], returned: readonly KeyRow[]): boolean[] {
  const named = new Set(returned.map((row) => keyOf({ taskRunId: row.task_run_id, attempt: row.attempt })));
  return keys.map((key) => named.delete(keyOf(key)));
}

/**
 * How long the removal of a finished job's row waits for others to go with it:
 * nobody waits on it (the slot is free already), and at hundreds of jobs a
 * second it makes one DELETE of several rows instead of one per job.
 */
const RESULT_REMOVAL_LINGER_MS = 20;

/**
 * How long the insert of a dispatched job's row waits for others to go with it.
 * The job leaves for its worker after the insert, so this stays small: jobs
 * dispatched in the same moment (one per turn of the event loop, as they come
 * off the queue) share one INSERT instead of one each plus one for the rest.
 */
const INSERT_LINGER_MS = 3;

/**
 * From 150 dispatches a second on (a controller near what this machine kind
 * sustains), an insert waits 10 ms: several jobs then share its statement (about
 * 0.6 statements per execution of two tasks at saturation instead of 1.3), and
 * 10 ms is little beside the time a job waits for its slot at that load. Below
 * it the 3 ms window holds (at a fixed 50 executions a second the longer one
 * added 13 ms to every execution's p50 for a fraction of a statement).
 */
const INSERT_LINGER_AT_LOAD_MS = 10;
const LOAD_INSERTS_PER_SECOND = 150;

/** At most this many inserts, and this many removals, in one statement. */
const MAX_ROWS_PER_STATEMENT = 200;

/** A job as its worker-queue message names it: the tenant, the task run and the attempt. */
export interface TenantJobKey extends JobKey {
  readonly tenantId: string;
}

/**
 * The durable running-job store: a controller records a job here before it
 * sends it to a worker and removes it when it relays the job's end (its
 * result, or a lost report), marking that end as relayed until the executor
 * has recorded it. Unique on task-run id + attempt, so a redelivered job is
 * recorded once.
 *
 * Inserts and removals of results wait a few milliseconds for others (calls
 * that arrive while an earlier one is in flight go together), and the two
 * windows share their statement: a controller dispatching hundreds of jobs a
 * second makes a few round trips instead of hundreds, and at load the rows of
 * the jobs that just finished go in the statement that inserts the jobs taking
 * their slots. Each caller still gets its own answer.
 */
export class RunningJobStore {
  private readonly writes = new WindowedJobWrites<RunningJobRecord, JobKey>((jobs, keys) => this.write(jobs, keys), {
    insertLingerMs: INSERT_LINGER_MS,
    insertLingerAtLoadMs: INSERT_LINGER_AT_LOAD_MS,
    loadInsertsPerSecond: LOAD_INSERTS_PER_SECOND,
    removalLingerMs: RESULT_REMOVAL_LINGER_MS,
    maxRows: MAX_ROWS_PER_STATEMENT,
  });
  private readonly removals = new BatchedCalls<JobKey, boolean>((keys) => this.removeAll(keys));
  private readonly killChecks = new BatchedCalls<TenantJobKey, boolean>((keys) => this.killedAll(keys));

  /**
   * `pool` is the one under `db`: the insert and the removal of every
   * dispatched job go to it directly, without Prisma's query pipeline (about
   * 6 % of a controller's CPU at 200 jobs/s, against under 2 % for pg itself).
   */
  constructor(
    private readonly db: Db,
    private readonly pool: Pool,
  ) {}

  /**
   * True if recorded now. False when that task run's attempt is recorded
   * already (a redelivery), the executor has recorded it as ended, or a
   * controller has relayed its end (its result, or a lost report).
   */
  insert(job: RunningJobRecord): Promise<boolean> {
    return this.writes.insert(job);
  }

  /** True if it was there. */
  remove(taskRunId: string, attempt: number): Promise<boolean> {
    return this.removals.call({ taskRunId, attempt });
  }

  /**
   * The row of a job whose result has been relayed, removed as `remove` does
   * but up to RESULT_REMOVAL_LINGER_MS later, in one statement with the others
   * of that moment (and the inserts waiting then), for callers that do not
   * wait on it. The same statement marks the job's result as relayed, so a
   * redelivery of the job is refused until the executor has recorded the
   * attempt's end (and after: see `insert`). True if the row was there.
   */
  removeAfterResult(taskRunId: string, attempt: number): Promise<boolean> {
    return this.writes.remove({ taskRunId, attempt });
  }

  /**
   * Drops the relayed-end marks (results, lost reports) the executor no longer needs: those whose
   * attempt it has recorded as ended, and any older than `relayedBefore` (an
   * attempt never recorded, its execution deleted). Returns how many went.
   */
  async dropSettledResultMarks(relayedBefore: Date): Promise<number> {
    const dropped = await this.pool.query(
      `DELETE FROM relayed_results r
      WHERE r.relayed_at < $1
        OR EXISTS (SELECT 1 FROM task_run_attempts a WHERE a.task_run_id = r.task_run_id AND a.attempt = r.attempt AND a.ended_at IS NOT NULL)`,
      [relayedBefore],
    );
    return dropped.rowCount ?? 0;
  }

  /**
   * Whether the executor recorded this attempt of the task run as KILLED (its
   * task_run_attempts row, under the job's tenant): such a job must never be
   * sent to a worker, even by a controller that did not read the kill's
   * broadcast. False when the attempt is not recorded (yet) or in any other
   * state. Concurrent checks share one statement.
   */
  isAttemptKilled(job: TenantJobKey): Promise<boolean> {
    return this.killChecks.call({ tenantId: job.tenantId, taskRunId: job.taskRunId, attempt: job.attempt });
  }

  private async killedAll(keys: readonly TenantJobKey[]): Promise<boolean[]> {
    // On the pool itself, like the insert and the removal: a controller that starts under load checks
    // every job queued before it followed the kill broadcasts.
    const values: unknown[] = [];
    const triples = keys.map((key) => {
      const at = values.push(key.tenantId, key.taskRunId, key.attempt) - 3;
      return `($${at + 1}, $${at + 2}, $${at + 3}::int)`;
    });
    const killed = await this.pool.query<{ tenant_id: string; task_run_id: string; attempt: number }>(
      `SELECT t.tenant_id, a.task_run_id, a.attempt
      FROM task_run_attempts a
      JOIN task_runs t ON t.id = a.task_run_id
      WHERE a.state = 'KILLED' AND (t.tenant_id, a.task_run_id, a.attempt) IN (${triples.join(', ')})`,
      values,
    );
    const found = new Set(
      killed.rows.map((row) => `${row.tenant_id}\u0000${keyOf({ taskRunId: row.task_run_id, attempt: row.attempt })}`),
    );
    return keys.map((key) => found.has(`${key.tenantId}\u0000${keyOf(key)}`));
  }

  /**
   * One statement whatever the batch: the inserts of dispatched jobs, the
   * removals of relayed results, or both.
   *
   * An insert: ON CONFLICT DO NOTHING on the unique key makes a redelivery of a
   * held job a no-op, and NOT EXISTS one of an attempt the executor has already
   * ended (its result recorded, or its worker reported lost and the job put back
   * as a new attempt) or whose end (result or lost report) a controller has
   * relayed and the executor not recorded yet: once the row is gone, that is all
   * that stops a late redelivery from running the job again. A redelivery whose
   * result is relayed in the same statement is refused too, as if the removal
   * went first (the statement's parts all see the rows as they were before it).
   *
   * A removal marks every relayed key, its row there or not (a late result of a
   * job already reported lost is still its end).
   *
   * On the pool itself: this statement runs for every dispatched job.
   */
  private async write(
    jobs: readonly RunningJobRecord[],
    keys: readonly JobKey[],
  ): Promise<{ inserted: boolean[]; removed: boolean[] }> {
    const relayed = keyRows(keys);
    const dispatched = recordRows(jobs, relayed.values.length);
    const values = [...relayed.values, ...dispatched.values];
    const removeRelayed = `relayed (task_run_id, attempt) AS (VALUES ${relayed.rows.join(', ')}),
      marked AS (
        INSERT INTO relayed_results (task_run_id, attempt, relayed_at)
        SELECT DISTINCT task_run_id, attempt, now() FROM relayed
        ON CONFLICT DO NOTHING
      )`;
    const insertDispatched = (from: string, alsoRefusing = '') => `INSERT INTO running_jobs (id, ${RECORD_COLUMNS})
      SELECT gen_random_uuid(), v.* FROM ${from}
      WHERE NOT EXISTS (SELECT 1 FROM task_run_attempts a WHERE a.task_run_id = v.task_run_id AND a.attempt = v.attempt AND a.ended_at IS NOT NULL)
        AND NOT EXISTS (SELECT 1 FROM relayed_results r WHERE r.task_run_id = v.task_run_id AND r.attempt = v.attempt)${alsoRefusing}
      ON CONFLICT (task_run_id, attempt) DO NOTHING
      RETURNING task_run_id, attempt`;
    const removeRows = `DELETE FROM running_jobs j USING relayed
      WHERE j.task_run_id = relayed.task_run_id AND j.attempt = relayed.attempt
      RETURNING j.task_run_id, j.attempt`;

    if (keys.length === 0) {
      const created = await this.pool.query<KeyRow>(
        insertDispatched(`(VALUES ${dispatched.rows.join(', ')}) AS v (${RECORD_COLUMNS})`),
        values,
      );
      return { inserted: answersPerKey(jobs, created.rows), removed: [] };
    }
    if (jobs.length === 0) {
      const removed = await this.pool.query<KeyRow>(`WITH ${removeRelayed} ${removeRows}`, values);
      return { inserted: [], removed: answersPerKey(keys, removed.rows) };
    }
    const both = await this.pool.query<KeyRow & { inserted: boolean }>(
      `WITH dispatched (${RECORD_COLUMNS}) AS (VALUES ${dispatched.rows.join(', ')}),
      ${removeRelayed},
      removed AS (${removeRows}),
      created AS (${insertDispatched(
        'dispatched v',
        `
        AND NOT EXISTS (SELECT 1 FROM relayed WHERE relayed.task_run_id = v.task_run_id AND relayed.attempt = v.attempt)`,
      )})
      SELECT true AS inserted, task_run_id, attempt FROM created
      UNION ALL SELECT false, task_run_id, attempt FROM removed`,
      values,
    );
    return {
      inserted: answersPerKey(
        jobs,
        both.rows.filter((row) => row.inserted),
      ),
      removed: answersPerKey(
        keys,
        both.rows.filter((row) => !row.inserted),
      ),
    };
  }

  private async removeAll(keys: readonly JobKey[]): Promise<boolean[]> {
    const { rows, values } = keyRows(keys);
    const removed = await this.pool.query<KeyRow>(
      `DELETE FROM running_jobs WHERE (task_run_id, attempt) IN (${rows.join(', ')}) RETURNING task_run_id, attempt`,
      values,
    );
    return answersPerKey(keys, removed.rows);
  }

  async get(taskRunId: string, attempt: number): Promise<RunningJobRecord | null> {
    const row = await this.db.runningJob.findUnique({ where: { taskRunId_attempt: { taskRunId, attempt } } });
    return row === null ? null : toRunningJobRecord(row);
  }

  async listByController(controllerInstanceId: string): Promise<RunningJobRecord[]> {
    const rows = await this.db.runningJob.findMany({ where: { controllerInstanceId }, orderBy: { dispatchedAt: 'asc' } });
    return rows.map(toRunningJobRecord);
  }

  /**
   * Which jobs a controller instance holds, without their job payloads (a
   * cheap listing for the controller's periodic ledger reconciliation).
   */
  async listHeldByController(controllerInstanceId: string): Promise<{ taskRunId: string; attempt: number; workerId: string }[]> {
    return this.db.runningJob.findMany({
      where: { controllerInstanceId },
      select: { taskRunId: true, attempt: true, workerId: true },
    });
  }

  /**
   * Moves the row to a new holder (a worker stream that adopted the job) in one
   * conditional UPDATE: only while it is still held by `from` (`workerId`
   * optional), or by anyone with 'any'. False when the row is gone (its result
   * was recorded, or it was reported lost) or another holder has it now.
   */
  async reassign(
    taskRunId: string,
    attempt: number,
    from: { workerId?: string; controllerInstanceId: string } | 'any',
    to: { workerId: string; controllerInstanceId: string },
  ): Promise<boolean> {
    const holder =
      from === 'any'
        ? {}
        : {
            controllerInstanceId: from.controllerInstanceId,
            ...(from.workerId !== undefined ? { workerId: from.workerId } : {}),
          };
    const { count } = await this.db.runningJob.updateMany({
      where: { taskRunId, attempt, ...holder },
      data: { workerId: to.workerId, controllerInstanceId: to.controllerInstanceId },
    });
    return count === 1;
  }

  /**
   * The row of a job about to be reported lost, removed in one conditional
   * DELETE, only while that worker on that controller still holds it: a job
   * adopted by a new stream stays. The same statement marks the attempt's end
   * as relayed, as a relayed result's removal does: until the executor has
   * recorded the loss, a redelivery of the job is refused (see `insert`). True
   * if removed. A report that cannot be published is undone with
   * `restoreUnreported`.
   */
  async removeLostIfHeldBy(
    taskRunId: string,
    attempt: number,
    holder: { workerId: string; controllerInstanceId: string },
  ): Promise<boolean> {
    const removed = await this.pool.query(
      `WITH lost AS (
        DELETE FROM running_jobs
        WHERE task_run_id = $1 AND attempt = $2 AND worker_id = $3 AND controller_instance_id = $4
        RETURNING task_run_id, attempt
      ),
      marked AS (
        INSERT INTO relayed_results (task_run_id, attempt, relayed_at)
        SELECT task_run_id, attempt, now() FROM lost
        ON CONFLICT DO NOTHING
      )
      SELECT 1 FROM lost`,
      [taskRunId, attempt, holder.workerId, holder.controllerInstanceId],
    );
    return removed.rowCount === 1;
  }

  /**
   * Puts back the row of a job whose lost report could not be published, and
   * drops the mark `removeLostIfHeldBy` wrote, in one statement: the job is
   * held again, so whoever next finds it (this controller's reconciliation,
   * the liveness coordinator) reports it. Not put back when the executor has
   * recorded the attempt's end meanwhile, or a row is there again. True if put back.
   */
  async restoreUnreported(job: RunningJobRecord): Promise<boolean> {
    const { rows, values } = recordRows([job]);
    const restored = await this.pool.query(
      `WITH unmarked AS (
        DELETE FROM relayed_results WHERE task_run_id = $3 AND attempt = $4::int
      )
      INSERT INTO running_jobs (id, ${RECORD_COLUMNS})
      SELECT gen_random_uuid(), v.* FROM (VALUES ${rows.join(', ')}) AS v (${RECORD_COLUMNS})
      WHERE NOT EXISTS (SELECT 1 FROM task_run_attempts a WHERE a.task_run_id = v.task_run_id AND a.attempt = v.attempt AND a.ended_at IS NOT NULL)
      ON CONFLICT (task_run_id, attempt) DO NOTHING`,
      values,
    );
    return restored.rowCount === 1;
  }

  /**
   * Jobs recorded by a controller instance that is gone: NOT_RUNNING (declared
   * dead by the liveness coordinator), or TERMINATED before `terminatedBefore`
   * (stopped, and its workers had the grace period to re-attach elsewhere).
   * Oldest first, at most `limit`.
   */
  async listOrphaned(terminatedBefore: Date, limit: number): Promise<RunningJobRecord[]> {
    const found = await this.db.$queryRaw<{ id: string }[]>`
      SELECT rj.id::text AS id
      FROM running_jobs rj
      JOIN service_instances si ON si.id = rj.controller_instance_id
      WHERE si.state = 'NOT_RUNNING' OR (si.state = 'TERMINATED' AND si.state_changed_at < ${terminatedBefore})
      ORDER BY rj.dispatched_at
      LIMIT ${limit}`;
    if (found.length === 0) return [];
    const rows = await this.db.runningJob.findMany({
      where: { id: { in: found.map((row) => row.id) } },
      orderBy: { dispatchedAt: 'asc' },
    });
    return rows.map(toRunningJobRecord);
  }

  async listByWorker(workerId: string): Promise<RunningJobRecord[]> {
    const rows = await this.db.runningJob.findMany({ where: { workerId }, orderBy: { dispatchedAt: 'asc' } });
    return rows.map(toRunningJobRecord);
  }
}

/** The columns of a running-job row its INSERTs write, `id` aside (the database makes it). */
const RECORD_COLUMNS =
  'tenant_id, execution_id, task_run_id, attempt, worker_queue_id, worker_id, controller_instance_id, job, dispatched_at';

/**
 * The jobs as SQL row values in RECORD_COLUMNS' order, and their parameters,
 * numbered after `before` others (with none, the first job's task run id is `$3`, its attempt `$4`).
 */
function recordRows(jobs: readonly RunningJobRecord[], before = 0): { rows: string[]; values: unknown[] } {
  const values: unknown[] = [];
  const rows = jobs.map((job) => {
    const at =
      before +
      values.push(
        job.tenantId,
        job.executionId,
        job.taskRunId,
        job.attempt,
        job.workerQueueId,
        job.workerId,
        job.controllerInstanceId,
        JSON.stringify(job.job ?? {}),
        job.dispatchedAt,
      ) -
      9;
    return `($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}::int, $${at + 5}, $${at + 6}, $${at + 7}, $${at + 8}::jsonb, $${at + 9}::timestamptz)`;
  });
  return { rows, values };
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
