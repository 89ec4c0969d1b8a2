import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CapacityLedger } from './capacity-ledger';
import { Dispatch, DispatchPolicy } from './dispatch-policy';
import { subscriptionsArb } from './capacity.spec-support';

const workerArb = fc.record({ slots: fc.integer({ min: 1, max: 8 }), subscriptions: subscriptionsArb, eligible: fc.boolean() });

const scenarioArb = fc.record({
  workers: fc.array(workerArb, { minLength: 1, maxLength: 6 }),
  waiting: fc.record({ q0: fc.nat(12), q1: fc.nat(12), q2: fc.nat(12) }),
});

/** Runs the policy until it serves nothing; returns each dispatch as (worker number, queue, slot kind, reason). */
function run(
  ledgers: CapacityLedger[],
  names: number[],
  waiting: Record<string, number>,
  eligible?: (index: number) => boolean,
): string[] {
  const policy = new DispatchPolicy();
  const left = new Map(Object.entries(waiting));
  const served: string[] = [];
  for (;;) {
    const dispatch: Dispatch | undefined = policy.next(ledgers, left, eligible);
    if (dispatch === undefined) return served;
    left.set(dispatch.workerQueueId, (left.get(dispatch.workerQueueId) ?? 0) - 1);
    served.push(`${names[dispatch.ledgerIndex]}:${dispatch.workerQueueId}:${dispatch.lease.occupies}:${dispatch.reason}`);
  }
}

describe('dispatch policy: ledgers that are not eligible', () => {
  it('serves exactly as if only the eligible ledgers had been passed', () => {
    fc.assert(
      fc.property(scenarioArb, ({ workers, waiting }) => {
        const build = () => workers.map((worker) => new CapacityLedger(worker.slots, worker.subscriptions));
        const all = build();
        const names = workers.map((_, index) => index);
        const withPredicate = run(all, names, waiting, (index) => workers[index].eligible);

        const eligibleNames = names.filter((index) => workers[index].eligible);
        const subset = build().filter((_, index) => workers[index].eligible);
        const filtered = run(subset, eligibleNames, waiting);

        assert.deepEqual(withPredicate, filtered);
        // The ineligible ledgers were never touched.
        all.forEach((ledger, index) => {
          if (!workers[index].eligible) assert.equal(ledger.freeSlots, workers[index].slots);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('gives nothing when no ledger is eligible, though every ledger has room', () => {
    const ledgers = [new CapacityLedger(4, [{ workerQueueId: 'q0', reservedPercent: 50, mode: 'STRICT' }])];
    expect(new DispatchPolicy().next(ledgers, new Map([['q0', 3]]), () => false)).toBeUndefined();
    expect(ledgers[0].freeSlots).toBe(4);
  });
});
