import { SpecDispatch, settle, worker } from './dispatch.spec-support';

describe('dispatch during maintenance mode', () => {
  it('places no job while held, keeps the running ones, and places the waiting ones once released', async () => {
    const dispatch = new SpecDispatch();
    const one = worker('w-1', 4, [{ workerQueueId: 'etl', mode: 'STRICT' }]);
    one.session.credit = 4;
    dispatch.join(one);
    const running = dispatch.submit('etl', 2);
    await settle();
    expect(one.jobs()).toEqual(running);

    dispatch.arbiter.hold(true);
    // The topic is no longer fetched from, and jobs already fetched wait for a slot that is not given.
    expect(dispatch.arbiter.admits('etl')).toBe(false);
    const waiting = dispatch.submit('etl', 2);
    await settle();
    expect(one.jobs()).toEqual(running);
    expect(dispatch.arbiter.waiting('etl')).toBe(2);
    // The running jobs finish and free their slots; still nothing is sent.
    for (const id of running) dispatch.finish(id);
    await settle();
    expect(one.jobs()).toEqual(running);
    expect(one.session.capacitySnapshot().used).toBe(0);

    dispatch.arbiter.hold(false);
    await settle();
    expect(one.jobs()).toEqual([...running, ...waiting]);
    expect(dispatch.arbiter.admits('etl')).toBe(true);
  });
});
