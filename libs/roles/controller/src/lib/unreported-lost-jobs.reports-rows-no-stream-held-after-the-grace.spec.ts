import type { RunningJobRecord } from '@lanner/model';
import { heldJobOfRow } from './worker-fleet';
import { UnreportedLostJobs } from './unreported-lost-jobs';

const QUIET_MS = 15_000;
const row = (taskRunId: string, attempt = 1, workerId = 'worker-gone') => ({ taskRunId, attempt, workerId });
const keys = (...ids: string[]) => new Set(ids);

describe('lost jobs whose report did not go out: rows of this controller no stream here holds', () => {
  it('reports a row only after it has been seen unheld for the quiet period, pass after pass', () => {
    const lost = new UnreportedLostJobs(QUIET_MS);
    const rows = [row('tr-1')];
    expect(lost.due(rows, keys(), 0)).toEqual([]);
    expect(lost.due(rows, keys(), QUIET_MS - 1)).toEqual([]);
    expect(lost.due(rows, keys(), QUIET_MS)).toEqual([row('tr-1')]);
    // Still there (its report failed again): due at every later pass.
    expect(lost.due(rows, keys(), QUIET_MS + 500)).toEqual([row('tr-1')]);
  });

  it('never reports a row a stream here holds, and starts over when a held row becomes unheld again', () => {
    const lost = new UnreportedLostJobs(QUIET_MS);
    const rows = [row('tr-held'), row('tr-free')];
    expect(lost.due(rows, keys('tr-held:1'), 0)).toEqual([]);
    expect(lost.due(rows, keys('tr-held:1'), QUIET_MS)).toEqual([row('tr-free')]);
    // Adopted for a while, then its stream ended: the quiet period counts from the first pass it was seen unheld again.
    expect(lost.due(rows, keys('tr-free:1'), QUIET_MS + 1_000)).toEqual([]);
    expect(lost.due(rows, keys(), QUIET_MS + 2_000)).toEqual([]);
    expect(lost.due(rows, keys(), 2 * QUIET_MS + 1_000)).toEqual([row('tr-held')]);
    expect(lost.due(rows, keys(), 2 * QUIET_MS + 2_000)).toEqual([row('tr-held'), row('tr-free')]);
  });

  it('tells attempts apart and forgets rows that are gone, so a row back later waits the whole period', () => {
    const lost = new UnreportedLostJobs(QUIET_MS);
    expect(lost.due([row('tr-1', 1), row('tr-1', 2)], keys('tr-1:2'), 0)).toEqual([]);
    expect(lost.tracked).toBe(1);
    expect(lost.due([], keys(), 1_000)).toEqual([]);
    expect(lost.tracked).toBe(0);
    expect(lost.due([row('tr-1', 1)], keys(), QUIET_MS + 1_000)).toEqual([]);
    expect(lost.due([row('tr-1', 1)], keys(), 2 * QUIET_MS + 1_000)).toEqual([row('tr-1', 1)]);
  });

  it('rebuilds the job a lost report names from the row, with the correlation id the job was queued with', () => {
    const record: RunningJobRecord = {
      taskRunId: 'tr-9',
      attempt: 2,
      tenantId: 'main',
      executionId: 'ex-9',
      workerQueueId: 'gpu',
      workerId: 'worker-gone',
      controllerInstanceId: 'controller-a',
      job: { correlationId: 'corr-9', payload: { taskRunId: 'tr-9' } },
      dispatchedAt: new Date(0),
    };
    expect(heldJobOfRow(record)).toEqual({
      tenantId: 'main',
      executionId: 'ex-9',
      taskRunId: 'tr-9',
      attempt: 2,
      workerQueueId: 'gpu',
      correlationId: 'corr-9',
      started: true,
    });
    expect(heldJobOfRow({ ...record, job: {} })).not.toHaveProperty('correlationId');
  });
});
