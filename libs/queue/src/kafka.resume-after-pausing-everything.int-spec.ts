import { randomUUID } from 'node:crypto';
import { createKafkaQueue } from './kafka/kafka-queue';
import { parseKafkaBrokers } from './kafka/kafka-brokers';
import type { QueueMessage, QueuePort, QueueSubscription } from './queue.port';

// Fails (never skips) when no broker is configured: tools/jest/int-env.js fills
// KAFKA_BROKERS from the dev services (`npm run services:up`).
const brokers = parseKafkaBrokers(process.env['KAFKA_BROKERS']);

/** Far longer than the test allows a resume, so a member stuck in the broker wait is told apart from one that is not. */
const MAX_WAIT_MS = 10_000;

/**
 * A controller pauses its only topic whenever its workers run out of slots and
 * resumes it as soon as one frees. A kafkajs consumer with every partition
 * paused sleeps its whole fetch wait before it looks again, so the job waiting
 * behind such a resume would start up to `maxWaitTimeMs` late, at every slot.
 */
describe('kafka queue: a member whose every topic was paused takes work at once when resumed', () => {
  const run = randomUUID().slice(0, 8);
  const topic = `lanner.resume-all-paused.${run}`;
  let queue: QueuePort;
  const subscriptions: QueueSubscription[] = [];

  beforeAll(async () => {
    queue = createKafkaQueue({
      brokers,
      clientId: 'lanner-resume-all-paused',
      consumer: { sessionTimeoutMs: 30_000, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 10_000, maxWaitTimeMs: MAX_WAIT_MS },
    });
    await queue.createTopics([{ topic, partitions: 1 }]);
    // A member is ready after its first fetch: with a record waiting, that fetch returns at once instead of after the wait.
    await queue.publish(topic, [{ key: 'task-run-0', value: Buffer.from('job-0') }]);
  });

  afterAll(async () => {
    await Promise.all(subscriptions.map((subscription) => subscription.close()));
    await queue.deleteTopics([topic]).catch(() => undefined);
    await queue.close();
  });

  it('delivers the held job well before the fetch wait ends, pause after pause', async () => {
    const received: QueueMessage[] = [];
    const subscription = await queue.subscribe({
      groupId: `lanner-resume-all-paused-${run}`,
      topics: [topic],
      fromBeginning: true,
      handler: async (message) => {
        received.push(message);
      },
    });
    subscriptions.push(subscription);
    const witnessed: QueueMessage[] = [];
    subscriptions.push(
      await queue.subscribe({
        groupId: `lanner-resume-all-paused-witness-${run}`,
        topics: [topic],
        fromBeginning: true,
        handler: async (message) => {
          witnessed.push(message);
        },
      }),
    );
    const until = async (condition: () => boolean, what: string, withinMs: number): Promise<void> => {
      const giveUpAt = Date.now() + withinMs;
      while (!condition()) {
        if (Date.now() > giveUpAt) throw new Error(`${what}: not within ${withinMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };

    await until(() => received.length === 1, 'the record published before subscribing', 10_000);
    for (let round = 1; round <= 3; round++) {
      subscription.pause(topic);
      await queue.publish(topic, [{ key: `task-run-${round}`, value: Buffer.from(`job-${round}`) }]);
      // The unpaused group has it: the paused member's fetch has returned it too, and a stuck member is now in its wait.
      await until(() => witnessed.length === round + 1, `round ${round}: the witness group's copy`, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(received).toHaveLength(round);

      subscription.resume(topic);
      // A third of the fetch wait: the job comes at once, not when the wait ends.
      await until(
        () => received.length === round + 1,
        `round ${round}: the job held while paused, after resume`,
        MAX_WAIT_MS / 3,
      );
      expect(received[round].value.toString('utf8')).toBe(`job-${round}`);
    }
  }, 90_000);
});
