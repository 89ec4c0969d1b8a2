import { CapacityLedger } from './capacity-ledger';
import { InvalidCapacityConfig, QueueNotSubscribed } from './capacity-errors';
import { fill, standing } from './capacity.spec-support';

describe('live reconfiguration never cuts running work', () => {
  it('a shrunken floor leaves running leases counted; used sits above the new floor until they finish', () => {
    const ledger = new CapacityLedger(10, [
      { workerQueueId: 'day', reservedPercent: 80, mode: 'STRICT' },
      { workerQueueId: 'night', reservedPercent: 20, mode: 'STRICT' },
    ]);
    const dayLeases = fill(ledger, 'day', 8);
    ledger.reconfigure([
      { workerQueueId: 'day', reservedPercent: 20, mode: 'STRICT' },
      { workerQueueId: 'night', reservedPercent: 80, mode: 'STRICT' },
    ]);
    expect(standing(ledger, 'day')).toMatchObject({ reserved: 2, used: 8 });
    // Only the 2 slots that are physically free can go to night, though its floor is now 8.
    expect(fill(ledger, 'night', 2)).toHaveLength(2);
    expect(ledger.acquire('night')).toBeUndefined();
    expect(ledger.snapshot()).toMatchObject({ used: 10, free: 0 });
    // As day's work finishes, its slots move to night's larger floor.
    dayLeases.slice(0, 6).forEach((lease) => expect(ledger.release(lease)).toBe(true));
    expect(fill(ledger, 'night', 6).every((lease) => lease.occupies === 'RESERVED')).toBe(true);
    expect(ledger.acquire('day')).toBeUndefined();
  });

  it("a removed subscription's running leases stay counted until released, then it disappears", () => {
    const ledger = new CapacityLedger(4, [
      { workerQueueId: 'old', reservedPercent: 50, mode: 'STRICT' },
      { workerQueueId: 'new', mode: 'STRICT' },
    ]);
    const oldLeases = fill(ledger, 'old', 3);
    ledger.reconfigure([{ workerQueueId: 'new', mode: 'STRICT' }]);
    expect(ledger.workerQueueIds).toEqual(['new']);
    expect(standing(ledger, 'old')).toMatchObject({ subscribed: false, reserved: 0, used: 3 });
    expect(() => ledger.acquire('old')).toThrow(QueueNotSubscribed);
    expect(ledger.acquire('new')).toBeDefined();
    expect(ledger.acquire('new')).toBeUndefined();
    oldLeases.forEach((lease) => ledger.release(lease));
    expect(ledger.snapshot().subscriptions.map((entry) => entry.workerQueueId)).toEqual(['new']);
    expect(ledger.snapshot().used).toBe(1);
  });

  it('switching a lender to STRICT keeps its slots on loan until released, and lends no more', () => {
    const ledger = new CapacityLedger(4, [
      { workerQueueId: 'owner', reservedPercent: 100, mode: 'ELASTIC' },
      { workerQueueId: 'guest', mode: 'ELASTIC' },
    ]);
    const borrowed = fill(ledger, 'guest', 2);
    ledger.reconfigure([
      { workerQueueId: 'owner', reservedPercent: 100, mode: 'STRICT' },
      { workerQueueId: 'guest', mode: 'ELASTIC' },
    ]);
    expect(standing(ledger, 'owner')).toMatchObject({ mode: 'STRICT', lent: 2 });
    expect(ledger.acquire('guest')).toBeUndefined();
    borrowed.forEach((lease) => ledger.release(lease));
    expect(standing(ledger, 'owner')).toMatchObject({ lent: 0, idleReserved: 4 });
    expect(ledger.acquire('guest')).toBeUndefined();
  });

  it('a subscription removed and added back keeps counting its running leases', () => {
    const ledger = new CapacityLedger(2, [{ workerQueueId: 'q', mode: 'STRICT' }]);
    const lease = fill(ledger, 'q', 1)[0];
    ledger.reconfigure([]);
    ledger.reconfigure([{ workerQueueId: 'q', reservedPercent: 100, mode: 'STRICT' }]);
    expect(standing(ledger, 'q')).toMatchObject({ subscribed: true, used: 1, reserved: 2 });
    expect(ledger.release(lease)).toBe(true);
    expect(standing(ledger, 'q').used).toBe(0);
  });

  it('an invalid reconfiguration is refused and changes nothing', () => {
    const ledger = new CapacityLedger(4, [{ workerQueueId: 'q', reservedPercent: 50, mode: 'STRICT' }]);
    fill(ledger, 'q', 1);
    const before = ledger.snapshot();
    expect(() =>
      ledger.reconfigure([
        { workerQueueId: 'q', reservedPercent: 50, mode: 'STRICT' },
        { workerQueueId: 'r', reservedPercent: 60, mode: 'STRICT' },
      ]),
    ).toThrow(InvalidCapacityConfig);
    expect(ledger.snapshot()).toEqual(before);
  });
});
