import type { RunningJobRecord, TaskRunAttemptRecord, TaskRunRecord, TaskRunRecordState } from '@lanner/model';
import { useTestRepositories } from '../testing/test-database';

// What the running-job store knows of the attempts the executor has ended: a
// controller asks whether a job queued before it followed kills was KILLED, and
// no attempt the executor has ended is recorded (so sent) again.

const t0 = new Date('2026-11-30T10:00:00.000Z');
const STILL_RUNNING: readonly TaskRunRecordState[] = ['SUBMITTED', 'RUNNING', 'KILLING'];

function attempt(number: number, state: TaskRunRecordState): TaskRunAttemptRecord {
  return {
    attempt: number,
    workerId: null,
    workerQueueId: 'gpu',
    state,
    outputs: null,
    error: null,
    startedAt: null,
    endedAt: STILL_RUNNING.includes(state) ? null : t0,
  };
}

function taskRun(executionId: string, id: string, state: TaskRunRecordState, attempts: TaskRunAttemptRecord[]): TaskRunRecord {
  return {
    id,
    executionId,
    taskId: id,
    parentTaskRunId: null,
    value: null,
    state,
    stateHistories: [{ state, date: t0 }],
    outputs: null,
    workerQueueId: 'gpu',
    workerSelector: null,
    dispatchReason: null,
    error: null,
    attempts,
  };
}

async function storeExecution(
  fixture: ReturnType<typeof useTestRepositories>,
  tenantId: string,
  executionId: string,
  taskRuns: TaskRunRecord[],
): Promise<void> {
  const { executions } = fixture.repositories;
  const created = await executions.create(tenantId, {
    id: executionId,
    namespace: 'company.team',
    flowId: 'nightly',
    flowRevision: 1,
    state: 'RUNNING',
    stateHistories: [{ state: 'RUNNING', date: t0 }],
  });
  await executions.update(tenantId, executionId, created.version, { state: 'KILLING', taskRuns });
}

function job(taskRunId: string, attempt: number): RunningJobRecord {
  return {
    taskRunId,
    attempt,
    tenantId: 'main',
    executionId: 'ex-late',
    workerQueueId: 'gpu',
    workerId: 'w-1',
    controllerInstanceId: 'controller-1',
    job: { correlationId: `c-${taskRunId}-${attempt}` },
    dispatchedAt: t0,
  };
}

describe('running-job store: was this job killed (the executor recorded its attempt KILLED)', () => {
  const fixture = useTestRepositories();

  it('answers true only for the KILLED attempt of the task run under its own tenant, for concurrent questions at once', async () => {
    await storeExecution(fixture, 'main', 'ex-kill', [
      // Killed while its second attempt waited on its topic; the first had been put back (worker lost).
      taskRun('ex-kill', 'tr-killed', 'KILLED', [attempt(1, 'RESUBMITTED'), attempt(2, 'KILLED')]),
      taskRun('ex-kill', 'tr-running', 'KILLING', [attempt(1, 'RUNNING')]),
      taskRun('ex-kill', 'tr-done', 'SUCCESS', [attempt(1, 'SUCCESS')]),
    ]);
    const { runningJobs } = fixture.repositories;
    const answers = await Promise.all([
      runningJobs.isAttemptKilled({ tenantId: 'main', taskRunId: 'tr-killed', attempt: 2 }),
      runningJobs.isAttemptKilled({ tenantId: 'main', taskRunId: 'tr-killed', attempt: 1 }),
      runningJobs.isAttemptKilled({ tenantId: 'main', taskRunId: 'tr-killed', attempt: 3 }),
      runningJobs.isAttemptKilled({ tenantId: 'main', taskRunId: 'tr-running', attempt: 1 }),
      runningJobs.isAttemptKilled({ tenantId: 'main', taskRunId: 'tr-done', attempt: 1 }),
      // Not recorded yet (the executor stores the state after it queued the job), or another tenant's.
      runningJobs.isAttemptKilled({ tenantId: 'main', taskRunId: 'tr-unknown', attempt: 1 }),
      runningJobs.isAttemptKilled({ tenantId: 'other', taskRunId: 'tr-killed', attempt: 2 }),
      runningJobs.isAttemptKilled({ tenantId: 'main', taskRunId: 'tr-killed', attempt: 2 }),
    ]);
    expect(answers).toEqual([true, false, false, false, false, false, false, true]);
  });
});

describe('running-job store: a late redelivery of an attempt the executor has ended', () => {
  const fixture = useTestRepositories();

  it('is not recorded (so not sent), whatever ended it, while attempts still running or not stored yet are', async () => {
    await storeExecution(fixture, 'main', 'ex-late', [
      // Its worker was reported lost: attempt 1 was put back on its queue as attempt 2.
      taskRun('ex-late', 'tr-lost', 'SUBMITTED', [attempt(1, 'RESUBMITTED'), attempt(2, 'SUBMITTED')]),
      taskRun('ex-late', 'tr-done', 'SUCCESS', [attempt(1, 'SUCCESS')]),
      taskRun('ex-late', 'tr-failed', 'FAILED', [attempt(1, 'FAILED')]),
      taskRun('ex-late', 'tr-killed', 'KILLED', [attempt(1, 'KILLED')]),
      taskRun('ex-late', 'tr-running', 'RUNNING', [attempt(1, 'RUNNING')]),
    ]);
    const { runningJobs } = fixture.repositories;
    // In one batch, as a controller taking many jobs at once records them.
    const candidates = [
      job('tr-lost', 1),
      job('tr-lost', 2),
      job('tr-done', 1),
      job('tr-failed', 1),
      job('tr-killed', 1),
      job('tr-running', 1),
      // The executor queues a job before it stores the attempt: the first delivery may come first.
      job('tr-new', 1),
    ];
    const recorded = await Promise.all(candidates.map((candidate) => runningJobs.insert(candidate)));
    expect(recorded).toEqual([false, true, false, false, false, true, true]);

    const rows = await Promise.all(candidates.map((candidate) => runningJobs.get(candidate.taskRunId, candidate.attempt)));
    expect(
      rows.map((row) => (row === null ? null : `${row.taskRunId}#${row.attempt} on ${row.workerId}: ${JSON.stringify(row.job)}`)),
    ).toEqual([
      null,
      'tr-lost#2 on w-1: {"correlationId":"c-tr-lost-2"}',
      null,
      null,
      null,
      'tr-running#1 on w-1: {"correlationId":"c-tr-running-1"}',
      'tr-new#1 on w-1: {"correlationId":"c-tr-new-1"}',
    ]);
  });
});

describe('running-job store: a redelivery of a job whose result was relayed, before the executor recorded it', () => {
  const fixture = useTestRepositories();

  it('is not recorded (so not sent) from the moment the row goes with its result, while another attempt of the task run is', async () => {
    const { runningJobs } = fixture.repositories;
    expect(await runningJobs.insert(job('tr-relayed', 1))).toBe(true);
    expect(await runningJobs.removeAfterResult('tr-relayed', 1)).toBe(true);
    // The executor has not stored the attempt at all yet: only the mark stops the redelivery.
    expect(await runningJobs.insert(job('tr-relayed', 1))).toBe(false);
    expect(await runningJobs.get('tr-relayed', 1)).toBeNull();
    // A retry of the task run is a new attempt, and a result relayed twice changes nothing.
    expect(await runningJobs.insert(job('tr-relayed', 2))).toBe(true);
    expect(await runningJobs.removeAfterResult('tr-relayed', 1)).toBe(false);
    expect(await runningJobs.insert(job('tr-relayed', 1))).toBe(false);
  });
});

describe('running-job store: a redelivery of a job reported lost, before the executor recorded the loss', () => {
  const fixture = useTestRepositories();
  const holder = { workerId: 'w-1', controllerInstanceId: 'controller-1' };

  it('is not recorded (so not sent) from the moment the row goes with the report; a report that could not be published puts the job back as it was', async () => {
    const { runningJobs } = fixture.repositories;
    expect(await runningJobs.insert(job('tr-lost', 1))).toBe(true);
    expect(await runningJobs.removeLostIfHeldBy('tr-lost', 1, holder)).toBe(true);
    // The executor has not stored the loss yet (nor the attempt): only the mark stops the redelivery.
    expect(await runningJobs.insert(job('tr-lost', 1))).toBe(false);
    expect(await runningJobs.get('tr-lost', 1)).toBeNull();

    // The report could not be published: the job is held again, by the same worker, and can be reported again.
    expect(await runningJobs.restoreUnreported(job('tr-lost', 1))).toBe(true);
    expect(await runningJobs.get('tr-lost', 1)).toMatchObject({ ...holder, job: { correlationId: 'c-tr-lost-1' } });
    expect(await runningJobs.restoreUnreported(job('tr-lost', 1))).toBe(false);
    expect(await runningJobs.removeLostIfHeldBy('tr-lost', 1, holder)).toBe(true);
    expect(await runningJobs.insert(job('tr-lost', 1))).toBe(false);
  });

  it('marks nothing when another holder has the job (adopted elsewhere: nothing is reported)', async () => {
    const { runningJobs } = fixture.repositories;
    expect(await runningJobs.insert(job('tr-adopted', 1))).toBe(true);
    expect(await runningJobs.removeLostIfHeldBy('tr-adopted', 1, { workerId: 'w-2', controllerInstanceId: 'controller-1' })).toBe(
      false,
    );
    // The dispatch's own undo removes the row without a mark: the job may be recorded again.
    expect(await runningJobs.remove('tr-adopted', 1)).toBe(true);
    expect(await runningJobs.insert(job('tr-adopted', 1))).toBe(true);
  });

  it('is never put back once the executor has recorded the attempt as ended', async () => {
    await storeExecution(fixture, 'main', 'ex-lost', [
      taskRun('ex-lost', 'tr-ended', 'SUBMITTED', [attempt(1, 'RESUBMITTED'), attempt(2, 'SUBMITTED')]),
    ]);
    const { runningJobs } = fixture.repositories;
    expect(await runningJobs.restoreUnreported(job('tr-ended', 1))).toBe(false);
    expect(await runningJobs.get('tr-ended', 1)).toBeNull();
  });
});

describe('running-job store: the marks of relayed results', () => {
  const fixture = useTestRepositories();

  it('keeps each mark until the executor has recorded the attempt as ended, or for a day; no redelivery is recorded in between', async () => {
    await storeExecution(fixture, 'main', 'ex-marks', [
      taskRun('ex-marks', 'tr-recorded', 'SUCCESS', [attempt(1, 'SUCCESS')]),
      taskRun('ex-marks', 'tr-pending', 'RUNNING', [attempt(1, 'RUNNING')]),
    ]);
    const { runningJobs } = fixture.repositories;
    for (const taskRunId of ['tr-recorded', 'tr-pending', 'tr-unstored']) {
      await runningJobs.insert(job(taskRunId, 1));
      await runningJobs.removeAfterResult(taskRunId, 1);
    }
    const aDayAgo = new Date(Date.now() - 24 * 60 * 60 * 1000);

    // Only tr-recorded's attempt is ended in task_run_attempts.
    expect(await runningJobs.dropSettledResultMarks(aDayAgo)).toBe(1);
    // The two marks left still refuse their redeliveries (tr-recorded's end refuses its own).
    expect(
      await Promise.all(['tr-recorded', 'tr-pending', 'tr-unstored'].map((taskRunId) => runningJobs.insert(job(taskRunId, 1)))),
    ).toEqual([false, false, false]);

    // A day later the marks of attempts never recorded as ended go too.
    expect(await runningJobs.dropSettledResultMarks(new Date(Date.now() + 1_000))).toBe(2);
    expect(await runningJobs.insert(job('tr-unstored', 1))).toBe(true);
  });
});
