import fc from 'fast-check';
import { WorkerQueueIndex, WorkerQueueResolver, type WorkerAvailability, type WorkerSelector } from '../index';

const TAGS = ['gpu', 'eu', 'us', 'linux', 'arm'];
const queuesArb = fc
  .array(
    fc.record({
      tags: fc.uniqueArray(fc.constantFrom(...TAGS), { minLength: 1, maxLength: 3 }),
      allowedTenants: fc.uniqueArray(fc.constantFrom('main', 'acme'), { maxLength: 1 }),
    }),
    { maxLength: 15 },
  )
  .map((queues) => queues.map((q, i) => ({ ...q, id: `queue-${i}` })));
const selectorArb: fc.Arbitrary<WorkerSelector> = fc.record({
  tags: fc.uniqueArray(fc.constantFrom(...TAGS), { minLength: 1, maxLength: 3 }),
  match: fc.constantFrom('ALL' as const, 'ANY' as const),
  fallback: fc.constantFrom('FAIL' as const, 'WAIT' as const, 'CANCEL' as const, 'IGNORE' as const),
});
/** Per queue: [subscribed groups, connected workers]. */
const availabilityArb = fc.dictionary(
  fc.constantFrom(...Array.from({ length: 15 }, (_, i) => `queue-${i}`), 'default'),
  fc.tuple(fc.nat(2), fc.nat(3)),
);

function availabilityOf(counts: Record<string, [number, number]>): WorkerAvailability {
  return {
    subscribedGroups: (id) => counts[id]?.[0] ?? 0,
    // Workers only exist in subscribed groups.
    connectedWorkers: (id) => ((counts[id]?.[0] ?? 0) > 0 ? (counts[id]?.[1] ?? 0) : 0),
  };
}

describe('resolver: properties', () => {
  it('is deterministic and independent of the order queues are listed in', () => {
    fc.assert(
      fc.property(
        queuesArb,
        selectorArb,
        availabilityArb,
        fc.constantFrom('main', 'acme'),
        (queues, selector, counts, tenant) => {
          const availability = availabilityOf(counts);
          const forward = new WorkerQueueResolver(WorkerQueueIndex.build(queues));
          const reversed = new WorkerQueueResolver(WorkerQueueIndex.build([...queues].reverse()));
          const first = forward.resolve(selector, { tenant }, availability);
          expect(forward.resolve(selector, { tenant }, availability)).toEqual(first);
          expect(reversed.resolve(selector, { tenant }, availability)).toEqual(first);
        },
      ),
    );
  });

  it('only DISPATCH and WAIT_AND_DISPATCH name a queue the job is put on, and DISPATCH to a tagged queue means a ready worker', () => {
    fc.assert(
      fc.property(queuesArb, selectorArb, availabilityArb, (queues, selector, counts) => {
        const availability = availabilityOf(counts);
        const decision = new WorkerQueueResolver(WorkerQueueIndex.build(queues)).resolve(
          selector,
          { tenant: 'main' },
          availability,
        );
        if (decision.action === 'DISPATCH' && decision.queueId !== 'default') {
          expect(availability.connectedWorkers(decision.queueId ?? '')).toBeGreaterThan(0);
        }
        if (decision.action === 'WAIT_AND_DISPATCH') expect(selector.fallback).toBe('WAIT');
        if (decision.action === 'CANCEL') expect(selector.fallback).toBe('CANCEL');
      }),
    );
  });
});
