import { CapacityLedger } from './capacity-ledger';

describe('the subscriptions that can be short of their floor', () => {
  it('are those with at least one reserved slot, in configuration order, and follow a reconfiguration', () => {
    const ledger = new CapacityLedger(8, [
      { workerQueueId: 'a', reservedPercent: 50, mode: 'STRICT' },
      { workerQueueId: 'b', mode: 'ELASTIC' },
      { workerQueueId: 'c', reservedPercent: 10, mode: 'ELASTIC' }, // floor(8 * 10%) = 0 slots: no floor
      { workerQueueId: 'd', reservedPercent: 25, mode: 'ELASTIC' },
    ]);
    expect(ledger.workerQueueIdsWithFloor).toEqual(['a', 'd']);
    for (const queue of ['b', 'c']) expect(ledger.floorShortfall(queue)).toBe(0);

    ledger.reconfigure([
      { workerQueueId: 'b', reservedPercent: 25, mode: 'ELASTIC' },
      { workerQueueId: 'a', mode: 'STRICT' },
    ]);
    expect(ledger.workerQueueIdsWithFloor).toEqual(['b']);
    expect(ledger.floorShortfall('a')).toBe(0);
    expect(ledger.floorShortfall('b')).toBe(2);
  });
});
