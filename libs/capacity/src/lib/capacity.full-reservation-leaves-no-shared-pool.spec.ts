import { CapacityLedger } from './capacity-ledger';
import { fill } from './capacity.spec-support';

describe('reservations summing to 100% leave no shared pool', () => {
  it('one subscription at 100% reserves every slot', () => {
    const ledger = new CapacityLedger(5, [
      { workerQueueId: 'only', reservedPercent: 100, mode: 'STRICT' },
      { workerQueueId: 'extra', mode: 'STRICT' },
    ]);
    expect(ledger.snapshot()).toMatchObject({ reserved: 5, shared: 0 });
    expect(fill(ledger, 'only', 5).every((lease) => lease.occupies === 'RESERVED')).toBe(true);
    expect(ledger.acquire('only')).toBeUndefined();
  });

  it('a subscription without reservation gets nothing while the others are idle', () => {
    const ledger = new CapacityLedger(5, [
      { workerQueueId: 'only', reservedPercent: 100, mode: 'STRICT' },
      { workerQueueId: 'extra', mode: 'STRICT' },
    ]);
    expect(ledger.acquire('extra')).toBeUndefined();
  });

  it('60% + 40% of 10 slots: each queue is capped at its own reservation when STRICT', () => {
    const ledger = new CapacityLedger(10, [
      { workerQueueId: 'a', reservedPercent: 60, mode: 'STRICT' },
      { workerQueueId: 'b', reservedPercent: 40, mode: 'STRICT' },
    ]);
    expect(ledger.snapshot()).toMatchObject({ reserved: 10, shared: 0 });
    fill(ledger, 'a', 6);
    expect(ledger.acquire('a')).toBeUndefined();
    expect(ledger.freeSlots).toBe(4);
  });

  it("60% + 40% of 10 slots, both ELASTIC: an idle queue's slots are borrowed, since there is no shared pool", () => {
    const ledger = new CapacityLedger(10, [
      { workerQueueId: 'a', reservedPercent: 60, mode: 'ELASTIC' },
      { workerQueueId: 'b', reservedPercent: 40, mode: 'ELASTIC' },
    ]);
    const leases = fill(ledger, 'a', 10);
    expect(leases.filter((lease) => lease.occupies === 'BORROWED')).toHaveLength(4);
    expect(ledger.acquire('a')).toBeUndefined();
  });
});
