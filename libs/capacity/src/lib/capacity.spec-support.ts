// Helpers shared by the capacity specs (not exported from the library).
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
