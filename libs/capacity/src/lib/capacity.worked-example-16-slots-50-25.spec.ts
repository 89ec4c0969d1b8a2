import { CapacityLedger } from './capacity-ledger';
import { fill, standing } from './capacity.spec-support';

describe('worked example: 16 slots, subscriptions at 50% and 25%', () => {
  const subscriptions = [
    { workerQueueId: 'etl', reservedPercent: 50, mode: 'STRICT' as const },
    { workerQueueId: 'reports', reservedPercent: 25, mode: 'STRICT' as const },
  ];

  it('reserves 8 and 4 slots and leaves 4 in the shared pool', () => {
    const snapshot = new CapacityLedger(16, subscriptions).snapshot();
    expect(snapshot).toMatchObject({ slots: 16, reserved: 12, shared: 4, used: 0, free: 16 });
    expect(snapshot.subscriptions.map(({ workerQueueId, reserved }) => [workerQueueId, reserved])).toEqual([
      ['etl', 8],
      ['reports', 4],
    ]);
  });

  it("lets a busy queue use its 8 reserved and all 4 shared slots, but never the other queue's 4", () => {
    const ledger = new CapacityLedger(16, subscriptions);
    const leases = fill(ledger, 'etl', 12);
    expect(leases.map((lease) => lease.occupies)).toEqual([...Array(8).fill('RESERVED'), ...Array(4).fill('SHARED')]);
    expect(ledger.acquire('etl')).toBeUndefined();
    expect(standing(ledger, 'etl')).toMatchObject({ used: 12, reservedUsed: 8, sharedUsed: 4, borrowed: 0 });

    // The quiet queue's floor is still there when its work arrives.
    expect(fill(ledger, 'reports', 4).every((lease) => lease.occupies === 'RESERVED')).toBe(true);
    expect(ledger.acquire('reports')).toBeUndefined();
    expect(ledger.snapshot()).toMatchObject({ used: 16, free: 0, sharedUsed: 4 });
  });
});
