import type { TaskRunRecord } from '@lanner/model';
import { AlreadyExists, ConcurrentModification, ExecutionNotFound } from '../errors';
import { useTestRepositories } from '../testing/test-database';

describe('ExecutionRepository', () => {
  const fixture = useTestRepositories();

  const t0 = new Date('2026-11-30T10:00:00.000Z');
  const t1 = new Date('2026-11-30T10:00:01.000Z');
  const newExecution = (id: string) => ({
    id,
    namespace: 'company.team',
    flowId: 'hello',
    flowRevision: 2,
    state: 'CREATED' as const,
    stateHistories: [{ state: 'CREATED' as const, date: t0 }],
    inputs: { region: 'eu' },
    labels: { team: 'data' },
  });
  const taskRun = (executionId: string): TaskRunRecord => ({
    id: `${executionId}-say`,
    executionId,
    taskId: 'say',
    parentTaskRunId: null,
    value: null,
    state: 'SUBMITTED',
    stateHistories: [
      { state: 'CREATED', date: t0 },
      { state: 'SUBMITTED', date: t1 },
    ],
    outputs: null,
    workerQueueId: 'default',
    workerSelector: { tags: ['linux'], match: 'ALL', fallback: 'WAIT' },
    dispatchReason: null,
    error: null,
    attempts: [
      {
        attempt: 1,
        workerId: 'worker-1',
        workerQueueId: 'default',
        state: 'RUNNING',
        outputs: null,
        error: null,
        startedAt: t1,
        endedAt: null,
      },
    ],
  });

  it('creates an execution and reads it back with its task runs and attempts', async () => {
    const created = await fixture.repositories.executions.create('main', newExecution('exec-1'));
    expect(created).toMatchObject({
      id: 'exec-1',
      tenantId: 'main',
      state: 'CREATED',
      version: 0,
      inputs: { region: 'eu' },
      labels: { team: 'data' },
    });
    await expect(fixture.repositories.executions.create('main', newExecution('exec-1'))).rejects.toBeInstanceOf(AlreadyExists);

    const updated = await fixture.repositories.executions.update('main', 'exec-1', 0, {
      state: 'RUNNING',
      stateHistories: [...created.stateHistories, { state: 'RUNNING', date: t1 }],
      startedAt: t1,
      taskRuns: [taskRun('exec-1')],
    });
    expect(updated.version).toBe(1);
    const read = await fixture.repositories.executions.get('main', 'exec-1');
    expect(read.state).toBe('RUNNING');
    expect(read.stateHistories).toEqual([
      { state: 'CREATED', date: t0 },
      { state: 'RUNNING', date: t1 },
    ]);
    expect(read.taskRuns).toEqual([taskRun('exec-1')]);
  });

  it("keeps a task run's own error, and replaces it when the task run is written again", async () => {
    const created = await fixture.repositories.executions.create('main', { ...newExecution('exec-error'), flowId: 'bounded' });
    const timedOut: TaskRunRecord = {
      ...taskRun('exec-error'),
      taskId: 'steps',
      state: 'FAILED',
      workerQueueId: null,
      workerSelector: null,
      error: 'Timed out after PT30S',
      attempts: [],
    };
    await fixture.repositories.executions.update('main', 'exec-error', 0, {
      state: 'RUNNING',
      stateHistories: created.stateHistories,
      taskRuns: [timedOut],
    });
    expect((await fixture.repositories.executions.get('main', 'exec-error')).taskRuns).toEqual([timedOut]);
    await fixture.repositories.executions.update('main', 'exec-error', 1, {
      state: 'RUNNING',
      stateHistories: created.stateHistories,
      taskRuns: [{ ...timedOut, error: null }],
    });
    expect((await fixture.repositories.executions.get('main', 'exec-error')).taskRuns[0]?.error).toBeNull();
  });

  it('refuses an update based on a stale version', async () => {
    const created = await fixture.repositories.executions.create('main', newExecution('exec-2'));
    await fixture.repositories.executions.update('main', 'exec-2', created.version, { state: 'RUNNING' });
    const stale = fixture.repositories.executions.update('main', 'exec-2', created.version, { state: 'CANCELLED' });
    await expect(stale).rejects.toBeInstanceOf(ConcurrentModification);
    const read = await fixture.repositories.executions.get('main', 'exec-2');
    expect(read).toMatchObject({ state: 'RUNNING', version: 1 });
  });

  it('lets exactly one of two concurrent writers of the same version win', async () => {
    const created = await fixture.repositories.executions.create('main', newExecution('exec-3'));
    const outcomes = await Promise.allSettled([
      fixture.repositories.executions.update('main', 'exec-3', created.version, { state: 'RUNNING' }),
      fixture.repositories.executions.update('main', 'exec-3', created.version, { state: 'CANCELLED' }),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect(rejected[0].reason).toBeInstanceOf(ConcurrentModification);
  });

  it('scopes executions to their tenant', async () => {
    await expect(fixture.repositories.executions.get('other-tenant', 'exec-1')).rejects.toBeInstanceOf(ExecutionNotFound);
    await expect(
      fixture.repositories.executions.update('other-tenant', 'exec-1', 1, { state: 'KILLING' }),
    ).rejects.toBeInstanceOf(ExecutionNotFound);
    const page = await fixture.repositories.executions.search('main', { flowId: 'hello', page: 1, size: 2 });
    expect(page.total).toBe(3);
    expect(page.results).toHaveLength(2);
  });

  describe('flow concurrency slots', () => {
    const limited = (id: string) => ({ ...newExecution(id), flowId: 'limited' });
    const admission = (executionId: string) => ({
      namespace: 'company.team',
      flowId: 'limited',
      executionId,
      limit: 1,
      queueWhenFull: true,
      at: t1,
    });
    const state = async (id: string) => (await fixture.repositories.executions.get('main', id)).state;

    it('admits one of many executions created at the same moment and queues the others, then hands the slot on in order', async () => {
      const ids = ['slot-a', 'slot-b', 'slot-c', 'slot-d'];
      for (const id of ids) await fixture.repositories.executions.create('main', limited(id));

      const admitted = await Promise.all(
        ids.map((id) => fixture.repositories.executions.admitUnderConcurrencyLimit('main', admission(id))),
      );

      expect(admitted.filter(Boolean)).toHaveLength(1);
      const winner = ids[admitted.indexOf(true)];
      expect(await state(winner)).toBe('RUNNING');
      expect((await fixture.repositories.executions.get('main', winner)).stateHistories).toEqual([
        { state: 'CREATED', date: t0 },
        { state: 'RUNNING', date: t1 },
      ]);
      const queued = ids.filter((id) => id !== winner);
      for (const id of queued) expect(await state(id)).toBe('QUEUED');
      // Asking again changes nothing: the holder stays admitted, the others stay queued.
      expect(await fixture.repositories.executions.admitUnderConcurrencyLimit('main', admission(winner))).toBe(true);
      expect(await fixture.repositories.executions.admitUnderConcurrencyLimit('main', admission(queued[0]))).toBe(false);

      // The winner's end is stored (as the executor stores it), then its slot is released.
      const stored = await fixture.repositories.executions.get('main', winner);
      await fixture.repositories.executions.update('main', winner, stored.version, { state: 'SUCCESS' });
      const release = { namespace: 'company.team', flowId: 'limited', executionId: winner, limit: 1 };
      const next = await fixture.repositories.executions.releaseConcurrencySlot('main', release);
      // The oldest queued execution (creation order, then id) is handed the slot; a repeated release names it again.
      expect(next.map((execution) => execution.id)).toEqual([queued[0]]);
      expect(
        (await fixture.repositories.executions.releaseConcurrencySlot('main', release)).map((execution) => execution.id),
      ).toEqual([queued[0]]);
      expect(await fixture.repositories.executions.admitUnderConcurrencyLimit('main', admission(queued[0]))).toBe(true);
      expect(await fixture.repositories.executions.releaseConcurrencySlot('main', release)).toEqual([]);
      // An ended execution never takes a slot again.
      expect(await fixture.repositories.executions.admitUnderConcurrencyLimit('main', admission(winner))).toBe(false);
    });
  });
});
