// Helpers shared by the capacity specs (not exported from the library).
import fc from 'fast-check';
import { CapacitySubscription } from './capacity-config';
import { CapacityLedger, SubscriptionCapacity } from './capacity-ledger';
import { Dispatch, DispatchPolicy } from './dispatch-policy';

export function standing(ledger: CapacityLedger, workerQueueId: string): SubscriptionCapacity {
  const found = ledger.snapshot().subscriptions.find((entry) => entry.workerQueueId === workerQueueId);
  if (found === undefined) throw new Error(`no subscription '${workerQueueId}' in the snapshot`);
  return found;
}

/** Acquires `count` slots for the queue and fails the test if any is refused. */
export function fill(ledger: CapacityLedger, workerQueueId: string, count: number) {
  return Array.from({ length: count }, (_, index) => {
    const lease = ledger.acquire(workerQueueId);
    if (lease === undefined) throw new Error(`slot ${index + 1} of ${count} for '${workerQueueId}' was refused`);
    return lease;
  });
}

/** Dispatches until the policy finds nothing to serve, lowering the waiting counts as a controller would. */
export function drain(policy: DispatchPolicy, ledgers: readonly CapacityLedger[], waiting: Map<string, number>): Dispatch[] {
  const dispatches: Dispatch[] = [];
  for (;;) {
    const dispatch = policy.next(ledgers, waiting);
    if (dispatch === undefined) return dispatches;
    waiting.set(dispatch.workerQueueId, (waiting.get(dispatch.workerQueueId) ?? 0) - 1);
    dispatches.push(dispatch);
  }
}

export const QUEUES = ['q0', 'q1', 'q2'] as const;

/** One to three of QUEUES, each with no floor, 25 % or 50 % (at most 100 % in all), STRICT or ELASTIC. */
export const subscriptionsArb: fc.Arbitrary<CapacitySubscription[]> = fc
  .shuffledSubarray([...QUEUES], { minLength: 1, maxLength: QUEUES.length })
  .chain((queueIds) =>
    fc
      .array(
        fc.record({
          reservedPercent: fc.constantFrom(undefined, 25, 50),
          mode: fc.constantFrom('STRICT' as const, 'ELASTIC' as const),
        }),
        {
          minLength: queueIds.length,
          maxLength: queueIds.length,
        },
      )
      .map((settings) => {
        let left = 100;
        return queueIds.map((workerQueueId, index) => {
          const wanted = settings[index].reservedPercent ?? 0;
          const reservedPercent = wanted <= left ? wanted : 0;
          left -= reservedPercent;
          return {
            workerQueueId,
            reservedPercent: reservedPercent === 0 ? undefined : reservedPercent,
            mode: settings[index].mode,
          };
        });
      }),
  );
