import { DispatchAbandoned } from './slot-arbiter';
import { SpecDispatch, settle, worker } from './dispatch.spec-support';

describe('dispatch: a slot is held from dispatch until the result, and never leaks', () => {
  it('frees every slot when the results come back', async () => {
    const dispatch = new SpecDispatch();
    const one = worker('w-1', 4, [{ workerQueueId: 'etl', reservedPercent: 50, mode: 'ELASTIC' }]);
    one.session.credit = 4;
    dispatch.join(one);
    const ids = dispatch.submit('etl', 4);
    await settle();
    expect(one.session.capacitySnapshot().used).toBe(4);

    for (const id of ids) dispatch.finish(id);
    // A duplicate result frees nothing twice.
    dispatch.finish(ids[0]);
    expect(one.session.capacitySnapshot()).toEqual(expect.objectContaining({ used: 0, free: 4 }));
    expect(one.session.knownJob(ids[0], 1)?.finished).toBe(true);
  });

  it('frees the slots of every job a worker held when its stream ends', async () => {
    const dispatch = new SpecDispatch();
    const one = worker('w-1', 4, [{ workerQueueId: 'etl', mode: 'STRICT' }]);
    one.session.credit = 4;
    dispatch.join(one);
    dispatch.submit('etl', 3);
    await settle();
    expect(one.session.capacitySnapshot().used).toBe(3);

    one.session.closed = true;
    dispatch.fleet.remove(one.session);
    expect(one.session.capacitySnapshot().used).toBe(0);
    // The jobs are still known, so the stream can report them lost.
    expect(one.session.held.size).toBe(3);
  });

  it('gives credit and slot back when a placed job is not sent after all (a redelivery)', async () => {
    const dispatch = new SpecDispatch();
    const one = worker('w-1', 2, [{ workerQueueId: 'etl', mode: 'STRICT' }]);
    one.session.credit = 2;
    dispatch.join(one);
    const placement = await dispatch.arbiter.place('etl');
    expect([one.session.credit, one.session.capacitySnapshot().used]).toEqual([1, 1]);

    dispatch.arbiter.giveBack(placement);
    expect([one.session.credit, one.session.capacitySnapshot().used]).toEqual([2, 0]);
  });

  it('holds a job the worker already runs after a reconnect, over capacity if it must, and frees it on its result', () => {
    const dispatch = new SpecDispatch();
    const one = worker('w-1', 1, [{ workerQueueId: 'etl', mode: 'STRICT' }]);
    dispatch.join(one);
    const running = (taskRunId: string) => ({
      tenantId: 'main',
      executionId: 'ex',
      taskRunId,
      attempt: 1,
      workerQueueId: 'etl',
      started: true,
    });
    const first = running('tr-1');
    const second = running('tr-2');
    one.session.adopt(first);
    one.session.adopt(second);

    expect(one.session.held.size).toBe(2);
    expect(one.session.capacitySnapshot().used).toBe(1);
    expect(one.session.canTake('etl')).toBe(false);
    one.session.finish(second);
    one.session.finish(first);
    expect(one.session.capacitySnapshot().used).toBe(0);
  });

  it('tells handlers waiting for a slot to give up when no worker serves their queue any more', async () => {
    const dispatch = new SpecDispatch();
    const waiting = dispatch.arbiter.place('etl');
    dispatch.arbiter.abandon('etl');
    await expect(waiting).rejects.toBeInstanceOf(DispatchAbandoned);
    expect(dispatch.arbiter.waiting('etl')).toBe(0);
  });
});
