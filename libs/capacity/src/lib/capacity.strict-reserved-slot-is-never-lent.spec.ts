import { CapacityLedger } from './capacity-ledger';
import { fill, standing } from './capacity.spec-support';

describe("a STRICT subscription's reserved slots are never lent", () => {
  it('an ELASTIC subscription cannot borrow an idle STRICT reserved slot', () => {
    const ledger = new CapacityLedger(4, [
      { workerQueueId: 'critical', reservedPercent: 75, mode: 'STRICT' },
      { workerQueueId: 'batch', mode: 'ELASTIC' },
    ]);
    expect(ledger.acquire('batch')?.occupies).toBe('SHARED');
    expect(ledger.acquire('batch')).toBeUndefined();
    expect(standing(ledger, 'critical')).toMatchObject({ lent: 0, idleReserved: 3 });
    expect(fill(ledger, 'critical', 3).every((lease) => lease.occupies === 'RESERVED')).toBe(true);
  });

  it('with STRICT and ELASTIC lenders side by side, only the ELASTIC one lends', () => {
    const ledger = new CapacityLedger(6, [
      { workerQueueId: 'strict', reservedPercent: 50, mode: 'STRICT' },
      { workerQueueId: 'elastic', reservedPercent: 50, mode: 'ELASTIC' },
      { workerQueueId: 'burst', mode: 'ELASTIC' },
    ]);
    const leases = fill(ledger, 'burst', 3);
    expect(leases.map((lease) => lease.lenderQueueId)).toEqual(['elastic', 'elastic', 'elastic']);
    expect(ledger.acquire('burst')).toBeUndefined();
    expect(standing(ledger, 'strict')).toMatchObject({ lent: 0, idleReserved: 3 });
  });
});

describe('a STRICT subscription never borrows', () => {
  it('stops at its reserved and shared slots even when an ELASTIC subscription is idle', () => {
    const ledger = new CapacityLedger(4, [
      { workerQueueId: 'strict', reservedPercent: 25, mode: 'STRICT' },
      { workerQueueId: 'elastic', reservedPercent: 50, mode: 'ELASTIC' },
    ]);
    expect(fill(ledger, 'strict', 2).map((lease) => lease.occupies)).toEqual(['RESERVED', 'SHARED']);
    expect(ledger.acquire('strict')).toBeUndefined();
    expect(ledger.peek('strict')).toBeUndefined();
    expect(standing(ledger, 'elastic')).toMatchObject({ lent: 0, idleReserved: 2 });
  });
});
