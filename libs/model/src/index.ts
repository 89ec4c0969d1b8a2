export * from './flow';
export * from './records';
export * from './text';
export * from './schedule';
export * from './flow-trigger';
export * from './reserved-ids';
