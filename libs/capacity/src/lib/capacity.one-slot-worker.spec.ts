import { CapacityLedger } from './capacity-ledger';

describe('a worker with one slot', () => {
  it("at 100% the slot is the subscription's own", () => {
    const ledger = new CapacityLedger(1, [{ workerQueueId: 'a', reservedPercent: 100, mode: 'STRICT' }]);
    const lease = ledger.acquire('a');
    expect(lease?.occupies).toBe('RESERVED');
    expect(ledger.acquire('a')).toBeUndefined();
  });

  it('at 50% nothing is reserved and the slot is shared by whoever asks first', () => {
    const ledger = new CapacityLedger(1, [
      { workerQueueId: 'a', reservedPercent: 50, mode: 'STRICT' },
      { workerQueueId: 'b', reservedPercent: 50, mode: 'STRICT' },
    ]);
    expect(ledger.snapshot()).toMatchObject({ reserved: 0, shared: 1 });
    const lease = ledger.acquire('b');
    expect(lease?.occupies).toBe('SHARED');
    expect(ledger.acquire('a')).toBeUndefined();
    ledger.release(lease as NonNullable<typeof lease>);
    expect(ledger.acquire('a')?.occupies).toBe('SHARED');
  });
});
