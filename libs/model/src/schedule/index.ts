export * from './schedule-dates';
