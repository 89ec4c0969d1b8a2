import type { RunningJobRecord } from '@lanner/model';
import { Client } from 'pg';
import { useTestRepositories } from '../testing/test-database';

const holder = { workerId: 'w-batch', controllerInstanceId: 'controller-batch' };

function job(taskRunId: string, attempt = 1, controllerInstanceId = holder.controllerInstanceId): RunningJobRecord {
  return {
    taskRunId,
    attempt,
    tenantId: 'main',
    executionId: `ex-${taskRunId}`,
    workerQueueId: 'default',
    workerId: holder.workerId,
    controllerInstanceId,
    job: { correlationId: `c-${taskRunId}` },
    dispatchedAt: new Date(Date.UTC(2026, 10, 30, 12, 0, 0)),
  };
}

describe('running-job store under concurrent writes (a controller dispatching many jobs at once)', () => {
  const fixture = useTestRepositories();

  it('records each of many concurrent inserts once and tells every caller whether its job was new', async () => {
    const { runningJobs } = fixture.repositories;
    await runningJobs.insert(job('tr-already', 1));

    const jobs = Array.from({ length: 60 }, (_, index) => job(`tr-${index}`));
    // A redelivery racing the first delivery, and a job recorded before: both answer false.
    const outcomes = await Promise.all(
      [...jobs, job('tr-7'), job('tr-already', 1), job('tr-already', 2)].map((record) => runningJobs.insert(record)),
    );

    expect(outcomes.slice(0, 60)).toEqual(jobs.map(() => true));
    expect(outcomes.slice(60)).toEqual([false, false, true]);
    const rows = await runningJobs.listByController(holder.controllerInstanceId);
    expect(rows).toHaveLength(62);
    expect(await runningJobs.get('tr-42', 1)).toEqual(job('tr-42'));
  });

  it('records jobs dispatched one after the other in the same moment with one statement', async () => {
    const { runningJobs } = fixture.repositories;
    const controller = 'controller-window';
    const statements = jest.spyOn(Client.prototype, 'query');
    try {
      const outcomes: Promise<boolean>[] = [];
      // As a controller dispatches a fetched batch: one job after the other, each insert started after an await.
      // (Without the window the first goes alone and the others follow in a second statement.)
      for (let index = 0; index < 4; index++) {
        outcomes.push(runningJobs.insert(job(`win-${index}`, 1, controller)));
        await Promise.resolve();
      }
      expect(await Promise.all(outcomes)).toEqual([true, true, true, true]);
      expect(statements).toHaveBeenCalledTimes(1);
    } finally {
      statements.mockRestore();
    }
    expect(await runningJobs.listByController(controller)).toHaveLength(4);
  });

  it("inserts the jobs taking freed slots and removes the finished jobs' rows in one statement", async () => {
    const { runningJobs } = fixture.repositories;
    const controller = 'controller-merged';
    await Promise.all(Array.from({ length: 3 }, (_, index) => runningJobs.insert(job(`done-${index}`, 1, controller))));
    const statements = jest.spyOn(Client.prototype, 'query');
    try {
      // As at load: results relayed, and the next jobs dispatched into the slots they freed, in the same moment.
      const removed: Promise<boolean>[] = [];
      const inserted: Promise<boolean>[] = [];
      for (let index = 0; index < 3; index++) {
        removed.push(runningJobs.removeAfterResult(`done-${index}`, 1));
        inserted.push(runningJobs.insert(job(`next-${index}`, 1, controller)));
        await Promise.resolve();
      }
      // A redelivery of a job whose result goes in the same statement is refused, as if the removal went first.
      inserted.push(runningJobs.insert(job('done-1', 1, controller)));
      removed.push(runningJobs.removeAfterResult('done-never', 1));
      expect(await Promise.all(removed)).toEqual([true, true, true, false]);
      expect(await Promise.all(inserted)).toEqual([true, true, true, false]);
      // Without the shared window: one INSERT and one removal.
      expect(statements).toHaveBeenCalledTimes(1);
    } finally {
      statements.mockRestore();
    }
    const rows = await runningJobs.listByController(controller);
    expect(rows.map((row) => row.taskRunId).sort()).toEqual(['next-0', 'next-1', 'next-2']);
    // Every relayed result is marked: none of them is recorded again.
    expect(await runningJobs.insert(job('done-0', 1, controller))).toBe(false);
    expect(await runningJobs.insert(job('done-never', 1, controller))).toBe(false);
  });

  it('fails only the job the database refuses when it shared its statement with removals and other inserts', async () => {
    const { runningJobs } = fixture.repositories;
    const controller = 'controller-refusing';
    await runningJobs.insert(job('gone-0', 1, controller));
    const outcomes = await Promise.allSettled([
      runningJobs.removeAfterResult('gone-0', 1),
      runningJobs.insert(job('fine-0', 1, controller)),
      // A NUL character in a JSON string: PostgreSQL cannot store it in jsonb.
      runningJobs.insert({ ...job('bad-0', 1, controller), job: { text: 'a\u0000b' } }),
      runningJobs.insert(job('fine-1', 1, controller)),
    ]);
    expect(outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : 'refused'))).toEqual([
      true,
      true,
      'refused',
      true,
    ]);
    const rows = await runningJobs.listByController(controller);
    expect(rows.map((row) => row.taskRunId).sort()).toEqual(['fine-0', 'fine-1']);
  });

  it('removes each of many concurrent removals once, and says false for a row that was not there', async () => {
    const { runningJobs } = fixture.repositories;
    const controller = 'controller-removing';
    await Promise.all(Array.from({ length: 40 }, (_, index) => runningJobs.insert(job(`rm-${index}`, 1, controller))));
    expect(await runningJobs.listByController(controller)).toHaveLength(40);

    const outcomes = await Promise.all([
      ...Array.from({ length: 40 }, (_, index) => runningJobs.remove(`rm-${index}`, 1)),
      runningJobs.remove('rm-3', 1),
      runningJobs.remove('rm-never', 1),
      runningJobs.remove('rm-5', 2),
    ]);

    expect(outcomes.slice(0, 40)).toEqual(Array.from({ length: 40 }, () => true));
    expect(outcomes.slice(40)).toEqual([false, false, false]);
    expect(await runningJobs.listByController(controller)).toEqual([]);
  });

  it('removes the rows of results relayed a few milliseconds apart, each caller told whether its row was there', async () => {
    const { runningJobs } = fixture.repositories;
    const controller = 'controller-relaying';
    await Promise.all(Array.from({ length: 6 }, (_, index) => runningJobs.insert(job(`res-${index}`, 1, controller))));

    const outcomes: Promise<boolean>[] = [];
    for (let index = 0; index < 6; index++) {
      outcomes.push(runningJobs.removeAfterResult(`res-${index}`, 1));
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    // A duplicate result of one of them, and a job this store never had.
    outcomes.push(runningJobs.removeAfterResult('res-2', 1), runningJobs.removeAfterResult('res-never', 1));

    expect(await Promise.all(outcomes)).toEqual([true, true, true, true, true, true, false, false]);
    expect(await runningJobs.listByController(controller)).toEqual([]);
  });
});
