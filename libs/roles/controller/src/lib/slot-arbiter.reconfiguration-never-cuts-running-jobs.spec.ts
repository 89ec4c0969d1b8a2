import { SpecDispatch, settle, worker } from './dispatch.spec-support';

describe('dispatch: live reconfiguration of a worker group', () => {
  it("applies A's new percent to the ledger at once, keeps running jobs, and uses the new layout for the next slots", async () => {
    const dispatch = new SpecDispatch();
    const one = worker('w-1', 8, [
      { workerQueueId: 'a', reservedPercent: 50, mode: 'STRICT' },
      { workerQueueId: 'b', reservedPercent: 25, mode: 'ELASTIC' },
    ]);
    one.session.credit = 8;
    dispatch.join(one);
    const aJobs = dispatch.submit('a', 4);
    dispatch.submit('b', 10);
    await settle();
    expect(one.jobs()).toHaveLength(8);

    const change = one.session.reconfigure([
      { workerQueueId: 'a', reservedPercent: 25, mode: 'STRICT' },
      { workerQueueId: 'b', reservedPercent: 50, mode: 'ELASTIC' },
    ]);
    expect(change).toEqual({ added: [], removed: [] });
    const snapshot = one.session.capacitySnapshot();
    expect(snapshot.subscriptions.find((s) => s.workerQueueId === 'a')).toEqual(
      expect.objectContaining({ reserved: 2, used: 4 }),
    );
    expect(snapshot.subscriptions.find((s) => s.workerQueueId === 'b')).toEqual(expect.objectContaining({ reserved: 4 }));
    expect(snapshot.used).toBe(8);
    // No job was cut: all still held.
    expect(aJobs.every((id) => one.session.held.has(`${id}:1`))).toBe(true);

    // A's jobs end: B, waiting, fills its new 4-slot floor; A keeps its new 2-slot STRICT floor (one job, one idle slot B may not use).
    dispatch.submit('a', 1);
    for (const id of aJobs) dispatch.finish(id);
    await settle();
    const after = one.session.capacitySnapshot().subscriptions;
    expect(after.find((s) => s.workerQueueId === 'a')).toEqual(
      expect.objectContaining({ reserved: 2, used: 1, idleReserved: 1 }),
    );
    expect(after.find((s) => s.workerQueueId === 'b')).toEqual(
      expect.objectContaining({ reserved: 4, reservedUsed: 4, sharedUsed: 2, used: 6, waiting: 4 }),
    );
  });

  it('reports queues gained and lost, and a removed queue keeps its running jobs until their results', async () => {
    const dispatch = new SpecDispatch();
    const one = worker('w-1', 4, [{ workerQueueId: 'a', mode: 'STRICT' }]);
    one.session.credit = 4;
    dispatch.join(one);
    const [running] = dispatch.submit('a', 1);
    await settle();

    const change = one.session.reconfigure([{ workerQueueId: 'b', mode: 'STRICT' }]);
    expect(change).toEqual({ added: ['b'], removed: ['a'] });
    expect(one.session.queueIds).toEqual(['b']);
    expect(one.session.capacitySnapshot().used).toBe(1);
    expect(one.session.canTake('a')).toBe(false);

    dispatch.finish(running);
    expect(one.session.capacitySnapshot().used).toBe(0);
  });

  it('refuses an invalid list, naming the field, and leaves the ledger as it was', () => {
    const one = worker('w-1', 4, [{ workerQueueId: 'a', reservedPercent: 50, mode: 'STRICT' }]);
    expect(() =>
      one.session.reconfigure([
        { workerQueueId: 'a', reservedPercent: 60, mode: 'STRICT' },
        { workerQueueId: 'b', reservedPercent: 60, mode: 'STRICT' },
      ]),
    ).toThrow(/reservedPercent sums to 120/);
    expect(one.session.capacitySnapshot().subscriptions).toEqual([expect.objectContaining({ workerQueueId: 'a', reserved: 2 })]);
  });
});
