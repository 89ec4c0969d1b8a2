import type { TaskRunRecord } from '@lanner/model';
import { Client } from 'pg';
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

  it('creates an execution of a known revision only while no newer revision or delete of its flow exists', async () => {
    const { repositories } = fixture;
    const flow = { namespace: 'company.team', flowId: 'latest-only', definition: {} };
    const execution = (id: string) => ({ ...newExecution(id), flowId: 'latest-only' });
    await repositories.flows.saveRevision('main', { ...flow, source: 'revision 1' });
    await repositories.flows.saveRevision('main', { ...flow, source: 'revision 2' });

    // Revision 2 is the latest: written, as `create` writes it.
    const created = await repositories.executions.createIfLatest('main', execution('latest-1'));
    expect(created).toMatchObject({
      execution: { id: 'latest-1', flowRevision: 2, state: 'CREATED', version: 0, labels: { team: 'data' } },
      maintenance: false,
    });
    // The row answered is the one the executor would read.
    expect(created?.execution).toEqual((await repositories.executions.getExecutorState('main', 'latest-1')).execution);
    expect(await repositories.executions.get('main', 'latest-1')).toMatchObject({ flowRevision: 2, inputs: { region: 'eu' } });
    await expect(repositories.executions.createIfLatest('main', execution('latest-1'))).rejects.toBeInstanceOf(AlreadyExists);

    // Revision 1 is not: nothing written.
    expect(await repositories.executions.createIfLatest('main', { ...execution('stale-1'), flowRevision: 1 })).toBeUndefined();
    await expect(repositories.executions.get('main', 'stale-1')).rejects.toBeInstanceOf(ExecutionNotFound);

    // A delete appends a revision: the one before it is no longer the latest.
    await repositories.flows.softDelete('main', 'company.team', 'latest-only');
    expect(await repositories.executions.createIfLatest('main', execution('after-delete'))).toBeUndefined();
    await expect(repositories.executions.get('main', 'after-delete')).rejects.toBeInstanceOf(ExecutionNotFound);
  });

  it('creates many executions of known revisions at once, each answered on its own: written, stale or a taken id', async () => {
    const { repositories } = fixture;
    const flow = { namespace: 'company.team', flowId: 'at-once', definition: {} };
    await repositories.flows.saveRevision('main', { ...flow, source: 'revision 1' });
    await repositories.flows.saveRevision('main', { ...flow, source: 'revision 2' });
    const execution = (id: string, flowRevision = 2) => ({ ...newExecution(id), flowId: 'at-once', flowRevision });
    await repositories.executions.create('main', execution('at-once-taken'));

    const answers = await Promise.allSettled([
      ...Array.from({ length: 20 }, (_, i) => repositories.executions.createIfLatest('main', execution(`at-once-${i}`))),
      repositories.executions.createIfLatest('main', execution('at-once-stale', 1)),
      repositories.executions.createIfLatest('main', execution('at-once-taken')),
    ]);
    const written = answers.slice(0, 20);
    expect(written.every((answer) => answer.status === 'fulfilled' && answer.value?.execution.flowRevision === 2)).toBe(true);
    for (let i = 0; i < 20; i++) expect((await repositories.executions.get('main', `at-once-${i}`)).id).toBe(`at-once-${i}`);
    expect(answers[20]).toEqual({ status: 'fulfilled', value: undefined });
    await expect(repositories.executions.get('main', 'at-once-stale')).rejects.toBeInstanceOf(ExecutionNotFound);
    expect(answers[21]).toMatchObject({ status: 'rejected', reason: expect.any(AlreadyExists) });
  });

  it('reads an execution with its task runs and attempts in one statement, the same as the record written', async () => {
    const created = await fixture.repositories.executions.create('reader', newExecution('exec-one-read'));
    const second: TaskRunRecord = { ...taskRun('exec-one-read'), id: 'exec-one-read-answer', taskId: 'answer', attempts: [] };
    const updated = await fixture.repositories.executions.update('reader', 'exec-one-read', 0, {
      state: 'RUNNING',
      stateHistories: [...created.stateHistories, { state: 'RUNNING', date: t1 }],
      startedAt: t1,
      outputs: { answer: 42, nested: { list: [1, 'two', null] } },
      taskRuns: [taskRun('exec-one-read'), second],
    });
    const statements = jest.spyOn(Client.prototype, 'query');
    try {
      const read = await fixture.repositories.executions.get('reader', 'exec-one-read');
      expect(statements).toHaveBeenCalledTimes(1);
      const { taskRuns: _written, ...row } = updated;
      const { taskRuns, ...readRow } = read;
      expect(readRow).toEqual(row);
      expect(taskRuns).toEqual([taskRun('exec-one-read'), second]);
      expect(readRow.startedAt).toBeInstanceOf(Date);
    } finally {
      statements.mockRestore();
    }
    await expect(fixture.repositories.executions.get('main', 'exec-one-read')).rejects.toBeInstanceOf(ExecutionNotFound);
  });

  it("stores the executor's write in one statement, and refuses a stale version, a missing row and a moved task run", async () => {
    const { executions } = fixture.repositories;
    await executions.create('writer', newExecution('exec-write'));
    await executions.create('writer', newExecution('exec-other'));
    const run = taskRun('exec-write');
    const write = {
      version: 3,
      state: 'RUNNING' as const,
      stateHistories: [
        { state: 'CREATED' as const, date: t0 },
        { state: 'RUNNING' as const, date: t1 },
      ],
      startedAt: t1,
      stateData: { cursor: 1 },
      taskRuns: [run],
    };
    const statements = jest.spyOn(Client.prototype, 'query');
    try {
      await executions.storeExecutorState('writer', 'exec-write', 0, write);
      expect(statements).toHaveBeenCalledTimes(1);
    } finally {
      statements.mockRestore();
    }
    const stored = await executions.getExecutorState('writer', 'exec-write');
    expect(stored).toMatchObject({ execution: { state: 'RUNNING', version: 3, startedAt: t1 }, stateData: { cursor: 1 } });
    expect((await executions.get('writer', 'exec-write')).taskRuns).toEqual([run]);

    // The same write again (a replay after a crash between the write and the commit) names a version that is gone.
    await expect(executions.storeExecutorState('writer', 'exec-write', 0, write)).rejects.toBeInstanceOf(ConcurrentModification);
    await expect(executions.storeExecutorState('writer', 'exec-missing', 0, write)).rejects.toBeInstanceOf(ExecutionNotFound);
    // A task-run id of another execution is never taken over, and nothing of that write is stored.
    await expect(
      executions.storeExecutorState('writer', 'exec-other', 0, { ...write, state: 'FAILED', taskRuns: [run] }),
    ).rejects.toBeInstanceOf(AlreadyExists);
    expect((await executions.get('writer', 'exec-other')).state).toBe('CREATED');

    // A later write replaces the task run and its attempt in place.
    const ended = {
      ...run,
      state: 'SUCCESS' as const,
      outputs: { value: 'done' },
      attempts: [{ ...run.attempts[0], state: 'SUCCESS' as const, outputs: { value: 'done' }, endedAt: t1 }],
    };
    await executions.storeExecutorState('writer', 'exec-write', 3, {
      ...write,
      version: 4,
      outputs: { answer: 1 },
      taskRuns: [ended],
    });
    const read = await executions.get('writer', 'exec-write');
    expect(read.outputs).toEqual({ answer: 1 });
    expect(read.taskRuns).toEqual([ended]);
  });

  it("stores a group of the executor's writes in one statement, each under its own version, and says why one was not", async () => {
    const { executions } = fixture.repositories;
    for (const id of ['group-a', 'group-b', 'group-stale', 'group-other']) await executions.create('grouped', newExecution(id));
    const item = (executionId: string, expectedVersion: number, extra: Record<string, unknown> = {}) => ({
      tenantId: 'grouped',
      executionId,
      expectedVersion,
      write: {
        version: expectedVersion + 1,
        state: 'RUNNING' as const,
        stateHistories: [
          { state: 'CREATED' as const, date: t0 },
          { state: 'RUNNING' as const, date: t1 },
        ],
        outputs: null,
        labels: { team: 'data' },
        startedAt: t1,
        endedAt: null,
        error: null,
        stateData: { cursor: executionId },
        taskRuns: [taskRun(executionId)],
        ...extra,
      },
    });
    const statements = jest.spyOn(Client.prototype, 'query');
    let outcomes;
    try {
      ({ outcomes } = await executions.storeExecutorStates([item('group-a', 0), item('group-b', 0)]));
      expect(statements).toHaveBeenCalledTimes(1);
    } finally {
      statements.mockRestore();
    }
    expect(Object.fromEntries(outcomes)).toEqual({ 'group-a': 'stored', 'group-b': 'stored' });
    for (const id of ['group-a', 'group-b']) {
      expect(await executions.getExecutorState('grouped', id)).toMatchObject({
        execution: { state: 'RUNNING', version: 1 },
        stateData: { cursor: id },
      });
      expect((await executions.get('grouped', id)).taskRuns).toEqual([taskRun(id)]);
    }

    // The executor's read of several executions: one statement, each in its tenant only, as each is read alone.
    const reads = jest.spyOn(Client.prototype, 'query');
    let read;
    try {
      ({ states: read } = await executions.getExecutorStatesAndMaintenance([
        { tenantId: 'grouped', executionId: 'group-a' },
        { tenantId: 'grouped', executionId: 'group-b' },
        { tenantId: 'elsewhere', executionId: 'group-other' },
        { tenantId: 'grouped', executionId: 'group-missing' },
      ]));
      expect(reads).toHaveBeenCalledTimes(1);
    } finally {
      reads.mockRestore();
    }
    expect([...read.keys()].sort()).toEqual(['group-a', 'group-b']);
    expect(read.get('group-a')).toMatchObject({ execution: { version: 1 }, stateData: { cursor: 'group-a' } });
    expect(read.get('group-a')).toEqual(await executions.getExecutorState('grouped', 'group-a'));

    // One stale version, one deleted execution, one task run of another execution: only the good write is stored.
    const { outcomes: again } = await executions.storeExecutorStates([
      item('group-a', 1, { state: 'SUCCESS', endedAt: t1 }),
      item('group-b', 0, { state: 'FAILED' }),
      item('group-gone', 0),
      item('group-other', 0, { taskRuns: [taskRun('group-a')] }),
    ]);
    expect(Object.fromEntries(again)).toEqual({
      'group-a': 'stored',
      'group-b': 'conflict',
      'group-gone': 'gone',
      'group-other': 'moved',
    });
    expect((await executions.get('grouped', 'group-a')).state).toBe('SUCCESS');
    expect((await executions.get('grouped', 'group-b')).state).toBe('RUNNING');
    expect((await executions.get('grouped', 'group-other')).state).toBe('CREATED');
  });

  it('reads back an execution the group write stored, as get reads it after the write, unless it is longer than asked', async () => {
    const { executions } = fixture.repositories;
    await executions.create('back', newExecution('back-a'));
    await executions.create('back', newExecution('back-big'));
    await executions.create('back', newExecution('back-quiet'));
    const run = (executionId: string, id: string, extra: Partial<TaskRunRecord> = {}) => ({
      ...taskRun(executionId),
      id: `${executionId}-${id}`,
      taskId: id,
      machineData: { id },
      ...extra,
    });
    const write = (version: number, taskRuns: ReturnType<typeof run>[], extra: Record<string, unknown> = {}) => ({
      version,
      state: 'RUNNING' as const,
      stateHistories: [{ state: 'CREATED' as const, date: t0 }],
      outputs: null,
      labels: { team: 'data' },
      startedAt: t1,
      endedAt: null,
      error: null,
      stateData: { formatVersion: 3 },
      taskRuns,
      ...extra,
    });
    // Three task runs written by the first write (ordered by id then), one kept as it is by the second.
    const first = await executions.storeExecutorStates([
      {
        tenantId: 'back',
        executionId: 'back-a',
        expectedVersion: 0,
        write: write(1, [run('back-a', 'zeta'), run('back-a', 'alpha'), run('back-a', 'kept')]),
      },
      { tenantId: 'back', executionId: 'back-big', expectedVersion: 0, write: write(1, [run('back-big', 'only')]) },
    ]);
    expect(first.readBack.size).toBe(0);
    const failed = { state: 'FAILED' as const, outputs: null, error: { message: 'exit 1' }, endedAt: t1 };
    const ended = (executionId: string) =>
      write(
        2,
        [
          run(executionId, 'zeta', {
            state: 'SUCCESS',
            outputs: { value: 42, nested: { b: 1, a: [true, null] } },
            attempts: [
              { ...taskRun(executionId).attempts[0], ...failed },
              { ...taskRun(executionId).attempts[0], attempt: 2, state: 'SUCCESS', outputs: { value: 42 }, endedAt: t1 },
            ],
          }),
          run(executionId, 'alpha', { state: 'FAILED', error: 'exit 1', dispatchReason: 'no worker' }),
        ],
        {
          state: 'FAILED',
          stateHistories: [
            { state: 'CREATED', date: t0 },
            { state: 'FAILED', date: t1 },
          ],
          outputs: { done: 'yes' },
          endedAt: t1,
          error: 'a task failed',
        },
      );
    const statements = jest.spyOn(Client.prototype, 'query');
    let second;
    try {
      second = await executions.storeExecutorStates([
        { tenantId: 'back', executionId: 'back-a', expectedVersion: 1, write: ended('back-a'), readBackUpTo: 16 * 1024 },
        { tenantId: 'back', executionId: 'back-big', expectedVersion: 1, write: ended('back-big'), readBackUpTo: 500 },
        { tenantId: 'back', executionId: 'back-quiet', expectedVersion: 0, write: write(1, []) },
        { tenantId: 'back', executionId: 'back-stale', expectedVersion: 0, write: write(1, []), readBackUpTo: 16 * 1024 },
      ]);
      // The write and the why of the one not stored.
      expect(statements).toHaveBeenCalledTimes(2);
    } finally {
      statements.mockRestore();
    }
    expect(Object.fromEntries(second.outcomes)).toEqual({
      'back-a': 'stored',
      'back-big': 'stored',
      'back-quiet': 'stored',
      'back-stale': 'gone',
    });
    expect([...second.readBack.keys()]).toEqual(['back-a']);
    const read = await executions.get('back', 'back-a');
    expect(read.taskRuns.map((taskRun) => taskRun.taskId)).toEqual(['alpha', 'kept', 'zeta']);
    expect(read.taskRuns[2]?.attempts).toHaveLength(2);
    expect(second.readBack.get('back-a')).toEqual(read);
  });

  it("keeps each task run's own value in its row: the reads give them back with the document, a write of one keeps the others", async () => {
    const { executions } = fixture.repositories;
    await executions.create('rows', newExecution('rows-a'));
    const run = (id: string, state: string) => ({
      ...taskRun('rows-a'),
      id: `rows-a-${id}`,
      taskId: id,
      machineData: { id, state },
    });
    const write = (version: number, runs: ReturnType<typeof run>[], cursor: number) => ({
      version,
      state: 'RUNNING' as const,
      stateHistories: [{ state: 'CREATED' as const, date: t0 }],
      labels: {},
      stateData: { formatVersion: 3, cursor },
      taskRuns: runs,
    });
    await executions.storeExecutorState('rows', 'rows-a', 0, write(1, [run('first', 'RUNNING'), run('second', 'CREATED')], 1));
    // Only the first task run changed: the second keeps the value stored before.
    await executions.storeExecutorStates([
      { tenantId: 'rows', executionId: 'rows-a', expectedVersion: 1, write: write(2, [run('first', 'SUCCESS')], 2) },
    ]);
    const byId = (stateData: unknown) =>
      [...((stateData as { taskRuns: { id: string; state: string }[] }).taskRuns ?? [])].sort((a, b) => a.id.localeCompare(b.id));
    const alone = await executions.getExecutorState('rows', 'rows-a');
    expect(alone.stateData).toMatchObject({ formatVersion: 3, cursor: 2 });
    expect(byId(alone.stateData)).toEqual([
      { id: 'first', state: 'SUCCESS' },
      { id: 'second', state: 'CREATED' },
    ]);
    const { states } = await executions.getExecutorStatesAndMaintenance([{ tenantId: 'rows', executionId: 'rows-a' }]);
    expect(byId(states.get('rows-a')?.stateData)).toEqual(byId(alone.stateData));
    // A document that holds its task runs (formats 1 and 2) is read as it is.
    await executions.storeExecutorState('rows', 'rows-a', 2, { ...write(3, [], 3), stateData: { cursor: 3, taskRuns: [] } });
    expect((await executions.getExecutorState('rows', 'rows-a')).stateData).toEqual({ cursor: 3, taskRuns: [] });
  });

  it("reads the maintenance flag with the executor's read of new executions, in the same statement", async () => {
    const { executions, maintenance } = fixture.repositories;
    await executions.create('held', newExecution('held-new'));
    const item = { tenantId: 'held', executionId: 'held-new' };
    const before = await executions.getExecutorStatesAndMaintenance([item]);
    expect(before.maintenance).toBe(false);
    expect(before.states.get('held-new')).toMatchObject({ execution: { state: 'CREATED' }, stateData: null });
    await maintenance.enter('alice', t0);
    try {
      const during = await executions.getExecutorStatesAndMaintenance([item]);
      expect(during.maintenance).toBe(true);
      expect(during.states.get('held-new')).toEqual(await executions.getExecutorState('held', 'held-new'));
      // The flag comes even when no execution asked for exists.
      expect(await executions.getExecutorStatesAndMaintenance([{ tenantId: 'held', executionId: 'none' }])).toEqual({
        states: new Map(),
        maintenance: true,
      });
    } finally {
      await maintenance.exit(t1);
    }
    expect((await executions.getExecutorStatesAndMaintenance([item])).maintenance).toBe(false);
  });

  it('says with each execution it creates whether maintenance mode was on when it was inserted', async () => {
    const { executions, maintenance } = fixture.repositories;
    const before = await executions.createIfLatest('held', newExecution('created-before'));
    expect(before).toMatchObject({ execution: { id: 'created-before' }, maintenance: false });
    await maintenance.enter('alice', t0);
    try {
      const during = await executions.createIfLatest('held', newExecution('created-during'));
      expect(during).toMatchObject({ execution: { id: 'created-during', state: 'CREATED' }, maintenance: true });
    } finally {
      await maintenance.exit(t1);
    }
    const after = await executions.createIfLatest('held', newExecution('created-after'));
    expect(after).toMatchObject({ execution: { id: 'created-after' }, maintenance: false });
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
