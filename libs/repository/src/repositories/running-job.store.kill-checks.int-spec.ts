import type { TaskRunAttemptRecord, TaskRunRecord, TaskRunRecordState } from '@lanner/model';
import { useTestRepositories } from '../testing/test-database';

// What a controller asks before it sends a job queued before it followed kills:
// did the executor record this attempt of the task run as KILLED?

const t0 = new Date('2026-11-30T10:00:00.000Z');

function attempt(number: number, state: TaskRunRecordState): TaskRunAttemptRecord {
  return { attempt: number, workerId: null, workerQueueId: 'gpu', state, outputs: null, error: null, startedAt: null, endedAt: state === 'KILLED' ? t0 : null };
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

async function storeExecution(fixture: ReturnType<typeof useTestRepositories>, tenantId: string, executionId: string, taskRuns: TaskRunRecord[]): Promise<void> {
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
