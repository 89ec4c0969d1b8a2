export * from './flow.types';
