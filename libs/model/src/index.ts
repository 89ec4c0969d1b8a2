export * from './flow';
export * from './records';
