import { SpecDispatch, settle, worker } from './dispatch.spec-support';

// WORKERS.md worked layout: 8 slots, A 50% STRICT (4), B 25% ELASTIC (2), C 25% ELASTIC (2), no shared pool.
const subscriptions = [
  { workerQueueId: 'a', reservedPercent: 50, mode: 'STRICT' as const },
  { workerQueueId: 'b', reservedPercent: 25, mode: 'ELASTIC' as const },
  { workerQueueId: 'c', reservedPercent: 25, mode: 'ELASTIC' as const },
];

describe('dispatch under a worker capacity ledger: a flood of one queue', () => {
  it("takes B's own slots and C's idle ELASTIC ones, never A's STRICT floor, so A's work still starts at once", async () => {
    const dispatch = new SpecDispatch();
    const gpu = worker('w-1', 8, subscriptions);
    gpu.session.credit = 8;
    dispatch.join(gpu);

    dispatch.submit('b', 20);
    await settle();
    expect(gpu.jobs()).toHaveLength(4);
    expect(gpu.jobs().every((id) => id.startsWith('b-'))).toBe(true);
    expect(dispatch.arbiter.waiting('b')).toBe(16);
    const afterFlood = gpu.session.capacitySnapshot();
    expect(afterFlood.subscriptions.find((s) => s.workerQueueId === 'a')).toEqual(
      expect.objectContaining({ used: 0, lent: 0, idleReserved: 4 }),
    );
    expect(afterFlood.subscriptions.find((s) => s.workerQueueId === 'c')).toEqual(expect.objectContaining({ used: 0, lent: 2 }));
    expect(afterFlood.subscriptions.find((s) => s.workerQueueId === 'b')).toEqual(
      expect.objectContaining({ used: 4, borrowed: 2, waiting: 16 }),
    );

    const aJobs = dispatch.submit('a', 4);
    await settle();
    expect(gpu.jobs().slice(4)).toEqual(aJobs);
    expect(gpu.session.capacitySnapshot()).toEqual(expect.objectContaining({ used: 8, free: 0 }));

    // A fifth job of A waits: STRICT never borrows, and every other slot is taken.
    dispatch.submit('a', 1);
    await settle();
    expect(gpu.jobs()).toHaveLength(8);
    expect(dispatch.arbiter.waiting('a')).toBe(1);
  });

  it('gives a freed slot to the queue below its reserved floor before the flooding one', async () => {
    const dispatch = new SpecDispatch();
    const one = worker('w-1', 8, subscriptions);
    one.session.credit = 8;
    dispatch.join(one);
    const aJobs = dispatch.submit('a', 4);
    await settle();
    const bJobs = dispatch.submit('b', 10);
    await settle();
    expect(one.jobs()).toHaveLength(8);

    // Two of A's jobs end while both A and B have work waiting: A is below its floor, so A goes first.
    dispatch.submit('a', 2);
    await settle();
    dispatch.finish(aJobs[0]);
    dispatch.finish(aJobs[1]);
    await settle();
    const next = one.jobs().slice(8);
    expect(next).toHaveLength(2);
    expect(next.every((id) => id.startsWith('a-'))).toBe(true);
    expect(dispatch.arbiter.waiting('b')).toBe(bJobs.length - 4);
  });
});
