export type { CapacitySubscription, SubscriptionMode } from './lib/capacity-config';
export { SUBSCRIPTION_MODES, reservedSlots } from './lib/capacity-config';
export { CapacityError, ForeignSlotLease, InvalidCapacityConfig, QueueNotSubscribed } from './lib/capacity-errors';
export type { CapacitySnapshot, SlotKind, SlotLease, SubscriptionCapacity } from './lib/capacity-ledger';
export { CapacityLedger } from './lib/capacity-ledger';
export type { Dispatch, DispatchReason, Eligible, WaitingWork } from './lib/dispatch-policy';
export { DispatchPolicy } from './lib/dispatch-policy';
