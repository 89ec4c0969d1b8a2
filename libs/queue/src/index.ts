export * from './queue.port';
