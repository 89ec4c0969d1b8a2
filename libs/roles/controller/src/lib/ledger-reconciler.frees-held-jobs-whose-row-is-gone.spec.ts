import { staleHeldJobs, type HeldJobOfWorker } from './ledger-reconciler';
import { worker } from './dispatch.spec-support';
import type { HeldJob } from './worker-fleet';

function held(taskRunId: string, attempt = 1): HeldJob {
  return { tenantId: 'main', executionId: `ex-${taskRunId}`, taskRunId, attempt, workerQueueId: 'default', started: true };
}

describe('ledger reconciliation against the running-job store', () => {
  it('picks exactly the held jobs without a row (same task run, other attempt counts as gone)', () => {
    const a = worker('worker-a', 2, [{ workerQueueId: 'default', mode: 'STRICT' }]).session;
    const b = worker('worker-b', 2, [{ workerQueueId: 'default', mode: 'STRICT' }]).session;
    const jobs: HeldJobOfWorker[] = [
      { session: a, job: held('tr-1') },
      { session: a, job: held('tr-2') },
      { session: b, job: held('tr-3', 2) },
    ];
    const stale = staleHeldJobs(jobs, [
      { taskRunId: 'tr-1', attempt: 1 },
      { taskRunId: 'tr-3', attempt: 1 },
      { taskRunId: 'tr-9', attempt: 1 },
    ]);
    expect(stale.map(({ session, job }) => `${session.workerId}/${job.taskRunId}:${job.attempt}`)).toEqual([
      'worker-a/tr-2:1',
      'worker-b/tr-3:2',
    ]);
  });

  it('frees nothing when every held job has its row', () => {
    const a = worker('worker-a', 1, [{ workerQueueId: 'default', mode: 'STRICT' }]).session;
    expect(staleHeldJobs([{ session: a, job: held('tr-1') }], [{ taskRunId: 'tr-1', attempt: 1 }])).toEqual([]);
  });
});
