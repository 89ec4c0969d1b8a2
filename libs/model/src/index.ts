export {};
export * from './records';
