export * from './schedule-dates';
export * from './declared-triggers';
export * from './backfill';
