import { CapacityLedger } from './capacity-ledger';
import { reservedSlots } from './capacity-config';

describe('reserved slots are floor(slots x percent / 100); the rounding remainder goes to the shared pool', () => {
  it.each([
    [3, 50, 1],
    [16, 25, 4],
    [10, 33, 3],
    [7, 14, 0],
    [1, 50, 0],
    [1, 99, 0],
    [1, 100, 1],
    [200, 1, 2],
  ])('%i slots at %i%% reserve %i', (slots, percent, expected) => {
    expect(reservedSlots(slots, percent)).toBe(expected);
    const snapshot = new CapacityLedger(slots, [{ workerQueueId: 'q', reservedPercent: percent, mode: 'STRICT' }]).snapshot();
    expect(snapshot.reserved).toBe(expected);
    expect(snapshot.shared).toBe(slots - expected);
  });

  it('3 slots split 50% / 50% reserve one each and share the third', () => {
    const ledger = new CapacityLedger(3, [
      { workerQueueId: 'a', reservedPercent: 50, mode: 'STRICT' },
      { workerQueueId: 'b', reservedPercent: 50, mode: 'STRICT' },
    ]);
    expect(ledger.snapshot()).toMatchObject({ reserved: 2, shared: 1 });
    expect(ledger.acquire('a')?.occupies).toBe('RESERVED');
    expect(ledger.acquire('a')?.occupies).toBe('SHARED');
    expect(ledger.acquire('a')).toBeUndefined();
    expect(ledger.acquire('b')?.occupies).toBe('RESERVED');
  });

  it('a percentage too small to reserve a whole slot guarantees nothing', () => {
    const ledger = new CapacityLedger(4, [
      { workerQueueId: 'tiny', reservedPercent: 10, mode: 'STRICT' },
      { workerQueueId: 'bulk', mode: 'STRICT' },
    ]);
    for (let i = 0; i < 4; i++) expect(ledger.acquire('bulk')?.occupies).toBe('SHARED');
    expect(ledger.acquire('tiny')).toBeUndefined();
  });
});
