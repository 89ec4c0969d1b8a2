import fc from 'fast-check';
import { CapacitySubscription } from './capacity-config';
import { CapacityLedger, SlotLease } from './capacity-ledger';

const SUBSCRIPTIONS: CapacitySubscription[] = [
  { workerQueueId: 'a', reservedPercent: 50, mode: 'STRICT' },
  { workerQueueId: 'b', reservedPercent: 25, mode: 'ELASTIC' },
  { workerQueueId: 'c', mode: 'ELASTIC' },
];

type Step = { kind: 'acquire'; queue: number } | { kind: 'release'; pick: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('acquire' as const), queue: fc.integer({ min: 0, max: SUBSCRIPTIONS.length - 1 }) }),
  fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
);

interface Moment {
  readonly pair: string;
  readonly leaseIds: string;
  readonly snapshot: string;
}

// Whoever watches a ledger (the worker registry) compares these two numbers
// instead of rebuilding the snapshot: equal pairs must mean the same leases,
// and different leases must never give equal pairs.
describe('the count and id sum of the live leases tell one set of leases from any other', () => {
  it('equal pairs at two moments mean the same live leases and the same snapshot, whatever ran between', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(stepArb, { minLength: 1, maxLength: 80 }), (slots, steps) => {
        const ledger = new CapacityLedger(slots, SUBSCRIPTIONS);
        const live: SlotLease[] = [];
        const moments: Moment[] = [];
        const record = () =>
          moments.push({
            pair: `${ledger.liveLeases}/${ledger.liveLeaseIdSum}`,
            leaseIds: live
              .map((lease) => lease.leaseId)
              .sort((left, right) => left - right)
              .join(','),
            snapshot: JSON.stringify(ledger.snapshot()),
          });
        record();
        for (const step of steps) {
          if (step.kind === 'acquire') {
            const lease = ledger.acquire(SUBSCRIPTIONS[step.queue].workerQueueId);
            if (lease) live.push(lease);
          } else if (live.length > 0) {
            const [lease] = live.splice(step.pick % live.length, 1);
            ledger.release(lease);
          }
          record();
        }
        expect(ledger.liveLeases).toBe(live.length);
        for (let i = 0; i < moments.length; i++) {
          for (let j = i + 1; j < moments.length; j++) {
            const samePair = moments[i].pair === moments[j].pair;
            expect(samePair).toBe(moments[i].leaseIds === moments[j].leaseIds);
            if (samePair) expect(moments[j].snapshot).toBe(moments[i].snapshot);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('comes back to where it was once a lease is granted and released', () => {
    const ledger = new CapacityLedger(4, SUBSCRIPTIONS);
    const kept = ledger.acquire('a');
    const before = [ledger.liveLeases, ledger.liveLeaseIdSum];
    const lease = ledger.acquire('b');
    expect([ledger.liveLeases, ledger.liveLeaseIdSum]).not.toEqual(before);
    if (lease) ledger.release(lease);
    expect([ledger.liveLeases, ledger.liveLeaseIdSum]).toEqual(before);
    expect(kept?.leaseId).toBe(1);
    // Releasing twice changes nothing.
    if (lease) ledger.release(lease);
    expect([ledger.liveLeases, ledger.liveLeaseIdSum]).toEqual(before);
  });
});
