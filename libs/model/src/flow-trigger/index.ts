export * from './flow-trigger-evaluation';
