export * from './schedule-dates';
export * from './declared-triggers';
export * from './backfill';
export { zonedIsoString } from './local-time';
export { type ClaimedScheduleState, delayToNextTick, scheduleEvaluationDate } from './tick';
export * from './polling';
