import { randomUUID } from 'node:crypto';
import { createKafkaQueue, type KafkaSubscribeOptions } from './kafka/kafka-queue';
import { parseKafkaBrokers } from './kafka/kafka-brokers';
import type { QueueMessage, QueuePort, QueueSubscription } from './queue.port';

// Fails (never skips) when no broker is configured: tools/jest/int-env.js fills
// KAFKA_BROKERS from the dev services (`npm run services:up`).
const brokers = parseKafkaBrokers(process.env['KAFKA_BROKERS']);

/** Long enough that "not committed yet" and "committed per message" are far apart. */
const COMMIT_INTERVAL_MS = 4_000;

async function until(condition: () => boolean | Promise<boolean>, what: string, withinMs: number): Promise<void> {
  const giveUpAt = Date.now() + withinMs;
  while (!(await condition())) {
    if (Date.now() > giveUpAt) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A controller's worker-queue consumer commits each job's offset after the job
 * is recorded and sent. With a commit interval those commits wait, merged, and
 * the member fetches the next job without a commit round trip in between; the
 * handled offsets still reach the group, after the interval or when the member
 * closes.
 */
describe('kafka queue: commits deferred by a commit interval', () => {
  const run = randomUUID().slice(0, 8);
  const topic = `lanner.deferred-commits.${run}`;
  let queue: QueuePort;
  const subscriptions: QueueSubscription[] = [];

  const publish = async (target: string, count: number, prefix: string): Promise<void> => {
    for (let index = 0; index < count; index++) {
      await queue.publish(target, [{ key: `${prefix}-${index}`, value: Buffer.from(`${prefix}-${index}`) }]);
    }
  };
  const subscribe = async (groupId: string, target: string, received: QueueMessage[]): Promise<QueueSubscription> => {
    const options: KafkaSubscribeOptions = {
      groupId,
      topics: [target],
      fromBeginning: true,
      commitIntervalMs: COMMIT_INTERVAL_MS,
      handler: async (message) => {
        received.push(message);
      },
    };
    const subscription = await queue.subscribe(options);
    subscriptions.push(subscription);
    return subscription;
  };
  const lag = async (groupId: string, target: string): Promise<number> =>
    (await queue.consumerLag(groupId, [target])).get(target) ?? -1;

  beforeAll(async () => {
    queue = createKafkaQueue({
      brokers,
      clientId: 'lanner-deferred-commits',
      consumer: { sessionTimeoutMs: 10_000, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 10_000, maxWaitTimeMs: 500 },
    });
    await queue.createTopics([{ topic, partitions: 1 }]);
  });

  afterAll(async () => {
    await Promise.all(subscriptions.map((subscription) => subscription.close()));
    await queue.deleteTopics([topic]).catch(() => undefined);
    await queue.close();
  });

  it('commits the first message of a partition at once and the later ones together after the interval', async () => {
    const groupId = `lanner-deferred-commits-${run}`;
    const received: QueueMessage[] = [];
    await publish(topic, 1, 'first');
    await subscribe(groupId, topic, received);
    await until(() => received.length === 1, 'the first message', 10_000);
    // The partition's first commit is not deferred: a group with no committed offset would start a new member past unhandled messages.
    await until(async () => (await lag(groupId, topic)) === 0, 'the first message committed', COMMIT_INTERVAL_MS / 2);

    await publish(topic, 5, 'later');
    await until(
      () => received.length === 6,
      'five more messages, fetched one after the other without waiting for commits',
      COMMIT_INTERVAL_MS / 2,
    );
    // Committed per message, the lag would be 0 by now.
    await sleep(500);
    expect(await lag(groupId, topic)).toBe(5);
    await until(
      async () => (await lag(groupId, topic)) === 0,
      'the five committed in one go after the interval',
      COMMIT_INTERVAL_MS * 2,
    );
    expect(received.map((message) => message.value.toString('utf8'))).toEqual([
      'first-0',
      'later-0',
      'later-1',
      'later-2',
      'later-3',
      'later-4',
    ]);
  }, 60_000);

  it('commits what waited when the subscription closes, so the next member of the group does not get it again', async () => {
    const groupId = `lanner-deferred-commits-close-${run}`;
    const received: QueueMessage[] = [];
    const subscription = await subscribe(groupId, topic, received);
    // The six of the first case: the first committed at once, the other five deferred.
    await until(() => received.length === 6, 'the six messages already on the topic', 10_000);
    await publish(topic, 3, 'before-close');
    await until(() => received.length === 9, 'three more', 10_000);
    expect(await lag(groupId, topic)).toBeGreaterThan(0);
    await subscription.close();
    expect(await lag(groupId, topic)).toBe(0);

    const again: QueueMessage[] = [];
    await subscribe(groupId, topic, again);
    await publish(topic, 1, 'after-close');
    await until(() => again.length >= 1, 'the message published after the close', 10_000);
    await sleep(500);
    expect(again.map((message) => message.value.toString('utf8'))).toEqual(['after-close-0']);
  }, 60_000);
});
