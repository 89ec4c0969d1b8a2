import { CapacityLedger, SlotLease } from './capacity-ledger';
import { ForeignSlotLease } from './capacity-errors';

const subscriptions = [{ workerQueueId: 'q', reservedPercent: 50, mode: 'STRICT' as const }];

describe('releasing a lease', () => {
  it('frees the slot once; a second release changes nothing', () => {
    const ledger = new CapacityLedger(2, subscriptions);
    const first = ledger.acquire('q') as SlotLease;
    ledger.acquire('q');
    expect(ledger.release(first)).toBe(true);
    const afterFirst = ledger.snapshot();
    expect(afterFirst.used).toBe(1);
    expect(ledger.release(first)).toBe(false);
    expect(ledger.snapshot()).toEqual(afterFirst);
  });

  it("refuses a lease issued by another worker's ledger and leaves both ledgers as they were", () => {
    const mine = new CapacityLedger(2, subscriptions);
    const theirs = new CapacityLedger(2, subscriptions);
    mine.acquire('q');
    const theirLease = theirs.acquire('q') as SlotLease;
    const before = mine.snapshot();
    expect(() => mine.release(theirLease)).toThrow(ForeignSlotLease);
    expect(mine.snapshot()).toEqual(before);
    expect(theirs.snapshot().used).toBe(1);
  });

  it('refuses a lease it never issued, even one that looks like its own', () => {
    const ledger = new CapacityLedger(2, subscriptions);
    const real = ledger.acquire('q') as SlotLease;
    const lookalike: SlotLease = {
      leaseId: real.leaseId,
      workerQueueId: real.workerQueueId,
      occupies: real.occupies,
      lenderQueueId: real.lenderQueueId,
    };
    expect(() => ledger.release(lookalike)).toThrow(ForeignSlotLease);
    expect(ledger.snapshot().used).toBe(1);
  });

  it('gives each lease its own id', () => {
    const ledger = new CapacityLedger(3, subscriptions);
    const ids = [ledger.acquire('q'), ledger.acquire('q'), ledger.acquire('q')].map((lease) => lease?.leaseId);
    expect(new Set(ids).size).toBe(3);
  });
});
