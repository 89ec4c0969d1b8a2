// Plain domain records the repository returns (no Prisma types, no I/O).
export * from './states';
export * from './flow.record';
export * from './execution.record';
export * from './topology.record';
export * from './cluster.record';
export * from './execution-stats';
