import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CapacitySubscription } from './capacity-config';
import { CapacityLedger, SlotLease } from './capacity-ledger';

const QUEUES = ['q0', 'q1', 'q2', 'q3'] as const;

const subscriptionsArb: fc.Arbitrary<CapacitySubscription[]> = fc
  .shuffledSubarray([...QUEUES], { minLength: 1, maxLength: QUEUES.length })
  .chain((queueIds) =>
    fc
      .array(
        fc.record({
          reservedPercent: fc.oneof(fc.constant(undefined), fc.integer({ min: 1, max: 60 })),
          mode: fc.constantFrom('STRICT' as const, 'ELASTIC' as const),
        }),
        { minLength: queueIds.length, maxLength: queueIds.length },
      )
      .map((settings) => {
        const sum = settings.reduce((total, setting) => total + (setting.reservedPercent ?? 0), 0);
        return queueIds.map((workerQueueId, index) => {
          const { reservedPercent, mode } = settings[index];
          const scaled =
            reservedPercent === undefined || sum <= 100 ? reservedPercent : Math.floor((reservedPercent * 100) / sum);
          return { workerQueueId, reservedPercent: scaled === 0 ? undefined : scaled, mode };
        });
      }),
  );

const scenarioArb = fc.record({
  slots: fc.integer({ min: 1, max: 12 }),
  subscriptions: subscriptionsArb,
  later: subscriptionsArb,
  before: fc.array(fc.integer({ min: 0, max: QUEUES.length - 1 }), { maxLength: 15 }),
  released: fc.array(fc.nat(), { maxLength: 5 }),
  reconfigure: fc.boolean(),
});

describe('CapacityLedger.takeable', () => {
  it('is exactly how many jobs of the queue acquire grants one after the other, in any state', () => {
    fc.assert(
      fc.property(scenarioArb, ({ slots, subscriptions, later, before, released, reconfigure }) => {
        const ledger = new CapacityLedger(slots, subscriptions);
        const held: SlotLease[] = [];
        for (const index of before) {
          const queueId = QUEUES[index];
          if (!ledger.isSubscribed(queueId)) continue;
          const lease = ledger.acquire(queueId);
          if (lease) held.push(lease);
        }
        for (const pick of released) if (held.length > 0) ledger.release(held.splice(pick % held.length, 1)[0]);
        if (reconfigure) ledger.reconfigure(later);

        for (const queueId of QUEUES) {
          const expected = ledger.takeable(queueId);
          if (!ledger.isSubscribed(queueId)) {
            assert.equal(expected, 0);
            continue;
          }
          const granted: SlotLease[] = [];
          for (let lease = ledger.acquire(queueId); lease !== undefined; lease = ledger.acquire(queueId)) granted.push(lease);
          assert.equal(granted.length, expected, `takeable(${queueId})`);
          for (const lease of granted) ledger.release(lease);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('counts own reserved, shared and (for ELASTIC) borrowable slots: 8 slots, A 50 % STRICT, B 25 % ELASTIC, C 25 % ELASTIC', () => {
    const ledger = new CapacityLedger(8, [
      { workerQueueId: 'a', reservedPercent: 50, mode: 'STRICT' },
      { workerQueueId: 'b', reservedPercent: 25, mode: 'ELASTIC' },
      { workerQueueId: 'c', reservedPercent: 25, mode: 'ELASTIC' },
    ]);
    expect([ledger.takeable('a'), ledger.takeable('b'), ledger.takeable('c'), ledger.takeable('x')]).toEqual([4, 4, 4, 0]);
    ledger.acquire('b');
    ledger.acquire('b');
    ledger.acquire('b');
    expect([ledger.takeable('a'), ledger.takeable('b'), ledger.takeable('c')]).toEqual([4, 1, 1]);
  });
});
