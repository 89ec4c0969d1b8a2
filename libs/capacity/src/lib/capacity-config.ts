import { InvalidCapacityConfig } from './capacity-errors';

/**
 * STRICT: idle reserved slots stay exclusive to the subscription and it never
 * borrows. ELASTIC: idle reserved slots may be lent to other ELASTIC
 * subscriptions of the same worker, and it may borrow theirs.
 */
export type SubscriptionMode = 'STRICT' | 'ELASTIC';

export const SUBSCRIPTION_MODES: readonly SubscriptionMode[] = ['STRICT', 'ELASTIC'];

/** One worker-queue subscription of the worker's group, as the ledger sees it. */
export interface CapacitySubscription {
  readonly workerQueueId: string;
  /**
   * Per-worker floor in percent of the worker's slots, 1..100. Absent or 0 means
   * no reservation: the subscription draws from the shared pool only (and, if
   * ELASTIC, may still borrow).
   */
  readonly reservedPercent?: number;
  readonly mode: SubscriptionMode;
}

/** A subscription after validation, with its reserved slot count worked out. */
export interface ResolvedSubscription {
  readonly workerQueueId: string;
  readonly reservedPercent: number;
  readonly mode: SubscriptionMode;
  readonly reserved: number;
}

export interface CapacityLayout {
  readonly slots: number;
  readonly subscriptions: readonly ResolvedSubscription[];
  readonly reserved: number;
  readonly shared: number;
}

/**
 * r = floor(S * p / 100). S * p is an exact integer, and dividing an exact
 * integer multiple of 100 by 100 is exact in IEEE doubles, so the floor never
 * loses a slot to rounding error (3 slots x 50% -> 1, 16 x 25% -> 4).
 */
export function reservedSlots(slots: number, reservedPercent: number): number {
  return Math.floor((slots * reservedPercent) / 100);
}

export function validateSlots(slots: number): void {
  if (!Number.isSafeInteger(slots) || slots < 1) {
    throw new InvalidCapacityConfig('slots', `must be an integer of at least 1, got ${String(slots)}`);
  }
}

/**
 * Validates a whole subscription list before anything changes, so a bad
 * reconfiguration leaves the ledger exactly as it was.
 */
export function resolveLayout(slots: number, subscriptions: readonly CapacitySubscription[]): CapacityLayout {
  validateSlots(slots);
  if (!Array.isArray(subscriptions)) {
    throw new InvalidCapacityConfig('subscriptions', 'must be a list');
  }
  const seen = new Set<string>();
  let percentSum = 0;
  let reserved = 0;
  const resolved = subscriptions.map((subscription, index): ResolvedSubscription => {
    const path = `subscriptions[${index}]`;
    const { workerQueueId, mode } = subscription;
    if (typeof workerQueueId !== 'string' || workerQueueId.length === 0) {
      throw new InvalidCapacityConfig(`${path}.workerQueueId`, 'must be a non-empty worker queue id');
    }
    if (seen.has(workerQueueId)) {
      throw new InvalidCapacityConfig(`${path}.workerQueueId`, `subscribes to the worker queue '${workerQueueId}' twice`);
    }
    seen.add(workerQueueId);
    if (!SUBSCRIPTION_MODES.includes(mode)) {
      throw new InvalidCapacityConfig(`${path}.mode`, `must be STRICT or ELASTIC, got ${String(mode)}`);
    }
    const reservedPercent = subscription.reservedPercent ?? 0;
    // 0 is accepted as "no reservation" (what an operator sets to stop guaranteeing a queue).
    if (!Number.isInteger(reservedPercent) || reservedPercent < 0 || reservedPercent > 100) {
      throw new InvalidCapacityConfig(
        `${path}.reservedPercent`,
        `must be an integer from 1 to 100 (or absent), got ${String(subscription.reservedPercent)}`,
      );
    }
    percentSum += reservedPercent;
    const reservedCount = reservedSlots(slots, reservedPercent);
    reserved += reservedCount;
    return { workerQueueId, reservedPercent, mode, reserved: reservedCount };
  });
  if (percentSum > 100) {
    throw new InvalidCapacityConfig('subscriptions', `reservedPercent sums to ${percentSum}, more than 100`);
  }
  return { slots, subscriptions: resolved, reserved, shared: slots - reserved };
}
