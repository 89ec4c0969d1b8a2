import { CapacityLedger } from './capacity-ledger';

describe('0% reserved is the same as no reservation', () => {
  it('gives the same layout and the same snapshot as an absent percentage', () => {
    const withZero = new CapacityLedger(8, [
      { workerQueueId: 'a', reservedPercent: 0, mode: 'STRICT' },
      { workerQueueId: 'b', reservedPercent: 50, mode: 'STRICT' },
    ]);
    const withoutPercent = new CapacityLedger(8, [
      { workerQueueId: 'a', mode: 'STRICT' },
      { workerQueueId: 'b', reservedPercent: 50, mode: 'STRICT' },
    ]);
    expect(withZero.snapshot()).toEqual(withoutPercent.snapshot());
    expect(withZero.snapshot().subscriptions[0]).toMatchObject({ reservedPercent: 0, reserved: 0 });
  });

  it('a subscription without reservation runs only on shared slots', () => {
    const ledger = new CapacityLedger(4, [
      { workerQueueId: 'a', reservedPercent: 0, mode: 'STRICT' },
      { workerQueueId: 'b', reservedPercent: 50, mode: 'STRICT' },
    ]);
    expect([ledger.acquire('a'), ledger.acquire('a'), ledger.acquire('a')].map((lease) => lease?.occupies)).toEqual([
      'SHARED',
      'SHARED',
      undefined,
    ]);
  });
});
