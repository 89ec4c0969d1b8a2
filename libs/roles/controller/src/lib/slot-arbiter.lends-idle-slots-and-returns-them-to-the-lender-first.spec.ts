import { SpecDispatch, settle, worker } from './dispatch.spec-support';

const subscriptions = [
  { workerQueueId: 'a', reservedPercent: 50, mode: 'STRICT' as const },
  { workerQueueId: 'b', reservedPercent: 25, mode: 'ELASTIC' as const },
  { workerQueueId: 'c', reservedPercent: 25, mode: 'ELASTIC' as const },
];

describe('dispatch under a worker capacity ledger: ELASTIC lending', () => {
  it("lends C's idle slots to B, and when C has work the next freed slot goes to C, not back to B", async () => {
    const dispatch = new SpecDispatch();
    const one = worker('w-1', 8, subscriptions);
    one.session.credit = 8;
    dispatch.join(one);

    const bJobs = dispatch.submit('b', 10);
    await settle();
    const borrowed = bJobs.filter((id) => dispatch.slotOwner(id) === 'c');
    expect(borrowed).toHaveLength(2);

    const cJobs = dispatch.submit('c', 2);
    await settle();
    // No preemption: C waits until one of B's borrowed jobs ends.
    expect(one.jobs().filter((id) => id.startsWith('c-'))).toEqual([]);

    dispatch.finish(borrowed[0]);
    await settle();
    expect(one.jobs().filter((id) => id.startsWith('c-'))).toEqual([cJobs[0]]);
    expect(dispatch.slotOwner(cJobs[0])).toBe('c');

    dispatch.finish(borrowed[1]);
    await settle();
    expect(one.jobs().filter((id) => id.startsWith('c-'))).toEqual(cJobs);
    // B still has 6 jobs waiting; nothing of C's was given to it meanwhile.
    expect(dispatch.arbiter.waiting('b')).toBe(6);
    expect(one.session.capacitySnapshot().subscriptions.find((s) => s.workerQueueId === 'c')).toEqual(
      expect.objectContaining({ used: 2, reservedUsed: 2, lent: 0 }),
    );
  });

  it('splits a shared pool between two busy queues in turn, so neither starves', async () => {
    const dispatch = new SpecDispatch();
    const one = worker('w-1', 4, [
      { workerQueueId: 'b', mode: 'ELASTIC' },
      { workerQueueId: 'c', mode: 'ELASTIC' },
    ]);
    dispatch.join(one);
    dispatch.submit('b', 20);
    dispatch.submit('c', 20);
    await settle();
    expect(one.jobs()).toEqual([]); // no credit yet

    one.session.credit = 4;
    dispatch.arbiter.pump();
    await settle();
    const started = one.jobs();
    expect(started.filter((id) => id.startsWith('b-'))).toHaveLength(2);
    expect(started.filter((id) => id.startsWith('c-'))).toHaveLength(2);
  });
});
