import { CapacityLedger } from './capacity-ledger';
import { DispatchPolicy } from './dispatch-policy';
import { drain, fill, standing } from './capacity.spec-support';

// 4 slots: 'tenant' reserves 2 (ELASTIC), 'burst' has no reservation (ELASTIC), 2 shared.
function lentOutWorker() {
  const ledger = new CapacityLedger(4, [
    { workerQueueId: 'tenant', reservedPercent: 50, mode: 'ELASTIC' },
    { workerQueueId: 'burst', mode: 'ELASTIC' },
  ]);
  // While the tenant is idle, the burst queue fills the shared pool and borrows both reserved slots.
  const burst = fill(ledger, 'burst', 4);
  return { ledger, shared: burst.slice(0, 2), borrowed: burst.slice(2) };
}

describe('no preemption: a lender below its floor gets the next slot that frees', () => {
  it("running borrowed work is not cut when the lender's work arrives", () => {
    const { ledger } = lentOutWorker();
    const dispatches = drain(new DispatchPolicy(), [ledger], new Map([['tenant', 2]]));
    expect(dispatches).toEqual([]);
    expect(standing(ledger, 'tenant')).toMatchObject({ used: 0, reserved: 2, lent: 2 });
    expect(standing(ledger, 'burst')).toMatchObject({ used: 4, borrowed: 2 });
  });

  it('a borrowed slot that frees returns to the lender, even though the borrower has more waiting', () => {
    const { ledger, borrowed } = lentOutWorker();
    const policy = new DispatchPolicy();
    const waiting = new Map([
      ['burst', 100],
      ['tenant', 2],
    ]);
    ledger.release(borrowed[0]);
    const [first] = drain(policy, [ledger], waiting);
    expect(first).toMatchObject({ workerQueueId: 'tenant', reason: 'FLOOR' });
    expect(first.lease.occupies).toBe('RESERVED');
  });

  it('a shared slot that frees also goes to the lender first while it is below its floor', () => {
    const { ledger, shared } = lentOutWorker();
    const waiting = new Map([
      ['burst', 100],
      ['tenant', 2],
    ]);
    ledger.release(shared[0]);
    const [first] = drain(new DispatchPolicy(), [ledger], waiting);
    expect(first).toMatchObject({ workerQueueId: 'tenant', reason: 'FLOOR' });
    expect(first.lease.occupies).toBe('SHARED');
  });

  it('once the borrowed work has finished the lender is back at its full floor', () => {
    const { ledger, borrowed } = lentOutWorker();
    const policy = new DispatchPolicy();
    const waiting = new Map([
      ['burst', 100],
      ['tenant', 5],
    ]);
    for (const lease of borrowed) {
      ledger.release(lease);
      drain(policy, [ledger], waiting);
    }
    expect(standing(ledger, 'tenant')).toMatchObject({ used: 2, reservedUsed: 2, lent: 0 });
    expect(standing(ledger, 'burst')).toMatchObject({ used: 2, borrowed: 0 });
  });
});

describe('with several lenders below their floors', () => {
  it('a freed borrowed slot goes back to its own lender, not to the lender with the larger shortfall', () => {
    const ledger = new CapacityLedger(8, [
      { workerQueueId: 'small', reservedPercent: 25, mode: 'ELASTIC' },
      { workerQueueId: 'large', reservedPercent: 50, mode: 'ELASTIC' },
      { workerQueueId: 'burst', mode: 'ELASTIC' },
    ]);
    const burst = fill(ledger, 'burst', 8);
    const policy = new DispatchPolicy();
    const waiting = new Map([
      ['small', 5],
      ['large', 5],
      ['burst', 100],
    ]);
    expect(drain(policy, [ledger], waiting)).toEqual([]);
    const fromSmall = burst.find((lease) => lease.lenderQueueId === 'small');
    ledger.release(fromSmall as NonNullable<typeof fromSmall>);
    expect(ledger.floorShortfall('large')).toBeGreaterThan(ledger.floorShortfall('small'));
    const next = policy.next([ledger], waiting);
    expect(next).toMatchObject({ workerQueueId: 'small', reason: 'FLOOR' });
    expect(next?.lease.occupies).toBe('RESERVED');
  });
});
