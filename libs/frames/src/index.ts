// gRPC contract (generated from proto/lanner/worker/v1 by `npm run codegen`).
export * from './generated/lanner/worker/v1/auth';
export * from './generated/lanner/worker/v1/controller';
export type { Duration } from './generated/google/protobuf/duration';
export * from './protocol-version';
export * from './frame-limits';
export * from './durations';
export * from './worker-instance';

// Queue (Kafka) message contract.
export * from './queue-messages/topics';
export * from './queue-messages/schemas';
export * from './queue-messages/codec';
