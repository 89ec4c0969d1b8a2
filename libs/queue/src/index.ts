export * from './queue.port';
export * from './queue.errors';
export type { QueueLogger } from './queue.logger';
export { createInProcessQueue, type InProcessQueueOptions } from './in-process/in-process-queue';
export {
  createKafkaQueue,
  MAX_RECORD_BYTES,
  RecordTooLargeError,
  type KafkaQueueOptions,
  type KafkaConsumerTimeouts,
} from './kafka/kafka-queue';
export { parseKafkaBrokers } from './kafka/kafka-brokers';
export { kafkaSocketFactory } from './kafka/kafka-socket';
export { namespacedQueue } from './namespaced-queue';
export { guardAgainstPoison, type HandlerFailureKind, type PoisonGuardOptions } from './poison-guard';
