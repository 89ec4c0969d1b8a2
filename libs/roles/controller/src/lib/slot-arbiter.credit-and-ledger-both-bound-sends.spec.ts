import { SpecDispatch, settle, worker } from './dispatch.spec-support';

describe('dispatch: credit and capacity ledger both bound what a worker is sent', () => {
  it('sends no more jobs than the worker granted credit, even with free slots', async () => {
    const dispatch = new SpecDispatch();
    const one = worker('w-1', 8, [{ workerQueueId: 'etl', mode: 'STRICT' }]);
    dispatch.join(one);
    one.session.credit = 2;
    dispatch.submit('etl', 6);
    await settle();

    expect(one.jobs()).toHaveLength(2);
    expect(one.session.credit).toBe(0);
    expect(one.session.capacitySnapshot().used).toBe(2);
  });

  it('sends no more jobs than the worker has slots, even with more credit', async () => {
    const dispatch = new SpecDispatch();
    const one = worker('w-1', 3, [{ workerQueueId: 'etl', mode: 'STRICT' }]);
    dispatch.join(one);
    one.session.credit = 10;
    dispatch.submit('etl', 6);
    await settle();

    expect(one.jobs()).toHaveLength(3);
    expect(one.session.credit).toBe(7);
    expect(dispatch.arbiter.waiting('etl')).toBe(3);
  });

  it('never spends one credit twice when many handlers ask at once, and spreads work over two workers', async () => {
    const dispatch = new SpecDispatch();
    const left = worker('w-left', 4, [{ workerQueueId: 'etl', mode: 'STRICT' }]);
    const right = worker('w-right', 4, [{ workerQueueId: 'etl', mode: 'STRICT' }]);
    left.session.credit = 3;
    right.session.credit = 2;
    dispatch.join(left, right);
    dispatch.submit('etl', 50);
    await settle();

    expect(left.jobs()).toHaveLength(3);
    expect(right.jobs()).toHaveLength(2);
    expect(new Set([...left.jobs(), ...right.jobs()]).size).toBe(5);
    expect([left.session.credit, right.session.credit]).toEqual([0, 0]);
  });

  it('sends nothing to a draining worker, nor for a queue its group does not subscribe to', async () => {
    const dispatch = new SpecDispatch();
    const draining = worker('w-1', 4, [{ workerQueueId: 'etl', mode: 'STRICT' }]);
    const other = worker('w-2', 4, [{ workerQueueId: 'gpu', mode: 'STRICT' }]);
    draining.session.credit = 4;
    draining.session.draining = true;
    other.session.credit = 4;
    dispatch.join(draining, other);
    dispatch.submit('etl', 2);
    await settle();

    expect(draining.jobs()).toEqual([]);
    expect(other.jobs()).toEqual([]);
    expect(dispatch.arbiter.admits('etl')).toBe(false);
    expect(dispatch.arbiter.admits('gpu')).toBe(true);
  });

  it('fetches a queue only while a worker has a slot for it and nothing of it waits yet', async () => {
    const dispatch = new SpecDispatch();
    const one = worker('w-1', 2, [
      { workerQueueId: 'etl', reservedPercent: 50, mode: 'STRICT' },
      { workerQueueId: 'gpu', reservedPercent: 50, mode: 'STRICT' },
    ]);
    dispatch.join(one);
    // Free slots but no credit yet: one job may be fetched and wait for the credit.
    expect(dispatch.arbiter.admits('etl')).toBe(true);
    dispatch.submit('etl', 1);
    await settle();
    expect(dispatch.arbiter.admits('etl')).toBe(false);

    one.session.credit = 2;
    dispatch.arbiter.pump();
    await settle();
    expect(one.jobs()).toHaveLength(1);
    // etl's only slot is taken (STRICT, no shared pool): nothing more of it is fetched; gpu still is.
    expect(dispatch.arbiter.admits('etl')).toBe(false);
    expect(dispatch.arbiter.admits('gpu')).toBe(true);
  });
});
