import { CapacityLedger } from './capacity-ledger';
import { fill, standing } from './capacity.spec-support';

describe('ELASTIC subscriptions lend idle reserved slots to each other', () => {
  it('takes own reserved, then shared, then borrows from an idle ELASTIC subscription', () => {
    const ledger = new CapacityLedger(8, [
      { workerQueueId: 'burst', reservedPercent: 25, mode: 'ELASTIC' },
      { workerQueueId: 'tenant-a', reservedPercent: 50, mode: 'ELASTIC' },
    ]);
    const leases = fill(ledger, 'burst', 8);
    expect(leases.map((lease) => lease.occupies)).toEqual([
      'RESERVED',
      'RESERVED',
      'SHARED',
      'SHARED',
      'BORROWED',
      'BORROWED',
      'BORROWED',
      'BORROWED',
    ]);
    expect(leases[7].lenderQueueId).toBe('tenant-a');
    expect(ledger.acquire('burst')).toBeUndefined();
    expect(standing(ledger, 'burst')).toMatchObject({ used: 8, borrowed: 4, lent: 0 });
    expect(standing(ledger, 'tenant-a')).toMatchObject({ used: 0, lent: 4, idleReserved: 0 });
  });

  it('borrows from the lender with the most idle reserved slots first', () => {
    const ledger = new CapacityLedger(10, [
      { workerQueueId: 'borrower', mode: 'ELASTIC' },
      { workerQueueId: 'small', reservedPercent: 30, mode: 'ELASTIC' },
      { workerQueueId: 'large', reservedPercent: 70, mode: 'ELASTIC' },
    ]);
    const lenders = fill(ledger, 'borrower', 6).map((lease) => lease.lenderQueueId);
    // large (7 idle) lends until it has as few idle slots as small (3), then they alternate.
    expect(lenders).toEqual(['large', 'large', 'large', 'large', 'small', 'large']);
  });

  it('a subscription without a reservation may borrow when ELASTIC', () => {
    const ledger = new CapacityLedger(2, [
      { workerQueueId: 'owner', reservedPercent: 100, mode: 'ELASTIC' },
      { workerQueueId: 'guest', mode: 'ELASTIC' },
    ]);
    expect(ledger.acquire('guest')).toMatchObject({ occupies: 'BORROWED', lenderQueueId: 'owner' });
  });

  it("a released borrowed slot goes back to the lender's reserved slots", () => {
    const ledger = new CapacityLedger(2, [
      { workerQueueId: 'owner', reservedPercent: 100, mode: 'ELASTIC' },
      { workerQueueId: 'guest', mode: 'ELASTIC' },
    ]);
    const borrowed = fill(ledger, 'guest', 2);
    ledger.release(borrowed[0]);
    expect(standing(ledger, 'owner')).toMatchObject({ lent: 1, idleReserved: 1 });
    expect(ledger.acquire('owner')?.occupies).toBe('RESERVED');
  });
});
