import { SpecDispatch, settle, worker } from './dispatch.spec-support';

describe('dispatch after a subscription change adds a reserved floor', () => {
  it('gives the next credit to the queue below its new floor, before the queue that waited longer', async () => {
    const dispatch = new SpecDispatch();
    const one = worker('w-1', 8, [
      { workerQueueId: 'a', mode: 'ELASTIC' },
      { workerQueueId: 'b', mode: 'ELASTIC' },
    ]);
    one.session.credit = 4;
    dispatch.join(one);
    const bJobs = dispatch.submit('b', 6);
    await settle();
    expect(one.jobs()).toEqual(bJobs.slice(0, 4));

    // A is given half of the worker. B could still borrow A's idle reserved slots, but A is below its floor.
    one.session.reconfigure([
      { workerQueueId: 'a', reservedPercent: 50, mode: 'ELASTIC' },
      { workerQueueId: 'b', mode: 'ELASTIC' },
    ]);
    const [aJob] = dispatch.submit('a', 1);
    await settle();
    expect(one.jobs()).toHaveLength(4);

    one.session.credit += 1;
    dispatch.arbiter.pump();
    await settle();
    expect(one.jobs().slice(4)).toEqual([aJob]);
    expect(dispatch.arbiter.waiting('b')).toBe(2);
  });
});
