import { createKafkaQueue } from './kafka/kafka-queue';
import { parseKafkaBrokers } from './kafka/kafka-brokers';
import { describeQueueContract } from './testing/queue-contract';

// Fails (never skips) when no broker is configured: tools/jest/int-env.js fills
// KAFKA_BROKERS from the dev services (`npm run services:up`).
const brokers = parseKafkaBrokers(process.env['KAFKA_BROKERS']);

describeQueueContract(
  'kafka',
  () =>
    createKafkaQueue({
      brokers,
      clientId: 'lanner-queue-contract',
      // Small timeouts so joins, rebalances and closes take seconds, not tens of seconds.
      consumer: { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 5_000, maxWaitTimeMs: 250 },
    }),
  { deliveryDeadlineMs: 20_000 },
);
