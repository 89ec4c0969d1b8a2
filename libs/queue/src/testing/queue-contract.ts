import { randomUUID } from 'node:crypto';
import type { QueueMessage, QueuePort, QueueRecord, QueueSubscription, SubscribeOptions } from '../queue.port';
import { NotSubscribedError, SubscribeAborted, UnknownTopicError } from '../queue.errors';

/**
 * The executable definition of the queue port: every adapter must pass this
 * suite. `openQueue` returns a fresh queue per test; the suite closes it.
 */
export function describeQueueContract(
  adapterName: string,
  openQueue: () => QueuePort | Promise<QueuePort>,
  settings: { deliveryDeadlineMs?: number } = {},
): void {
  const deadlineMs = settings.deliveryDeadlineMs ?? 5_000;

  describe(`queue contract: ${adapterName}`, () => {
    let queue: QueuePort;
    let topicsMade: string[];
    let subscriptions: QueueSubscription[];

    beforeEach(async () => {
      queue = await openQueue();
      topicsMade = [];
      subscriptions = [];
    });

    afterEach(async () => {
      await Promise.all(subscriptions.map((subscription) => subscription.close()));
      await queue.deleteTopics(topicsMade);
      await queue.close();
    });

    const fastRetry = { initialDelayMs: 20, maxDelayMs: 100 };

    async function newTopic(scenario: string, partitions: number): Promise<string> {
      const topic = `lanner.contract.${scenario}.${randomUUID().slice(0, 8)}`;
      topicsMade.push(topic);
      await queue.createTopics([{ topic, partitions }]);
      return topic;
    }

    async function subscribe(options: Omit<SubscribeOptions, 'retry'> & Partial<SubscribeOptions>) {
      const subscription = await queue.subscribe({ retry: fastRetry, fromBeginning: true, ...options });
      subscriptions.push(subscription);
      return subscription;
    }

    const groupId = (scenario: string): string => `lanner-contract-${scenario}-${randomUUID().slice(0, 8)}`;
    const text = (message: QueueMessage): string => message.value.toString('utf8');
    const record = (key: string, value: string): QueueRecord => ({ key, value: Buffer.from(value) });

    it('a keyed message published is consumed with its key, value and headers', async () => {
      const topic = await newTopic('keyed', 2);
      const inbox = new Inbox(deadlineMs);
      await subscribe({ groupId: groupId('keyed'), topics: [topic], handler: inbox.handler });

      await queue.publish(topic, [
        {
          key: 'execution-42',
          value: Buffer.from('{"event":"created"}'),
          headers: { 'lanner-correlation-id': 'corr-7', 'lanner-schema-version': '1' },
        },
      ]);

      const [message] = await inbox.waitFor(1, 'the published message');
      expect(message).toMatchObject({
        topic,
        key: 'execution-42',
        headers: { 'lanner-correlation-id': 'corr-7', 'lanner-schema-version': '1' },
      });
      expect(text(message)).toBe('{"event":"created"}');
      expect([0, 1]).toContain(message.partition);
      expect(message.offset).toMatch(/^\d+$/);
    });

    it('a group starting at the latest message gets what is published after subscribe resolves, not before', async () => {
      const topic = await newTopic('latest', 1);
      await queue.publish(topic, [record('execution-1', 'before')]);
      const inbox = new Inbox(deadlineMs);
      await subscribe({ groupId: groupId('latest'), topics: [topic], fromBeginning: false, handler: inbox.handler });

      await queue.publish(topic, [record('execution-1', 'after')]);

      // Same key, same partition: had "before" been delivered it would come first.
      const [first] = await inbox.waitFor(1, 'the record published after subscribing');
      expect(text(first)).toBe('after');
    });

    it('records with the same key are handled in the order they were published', async () => {
      const topic = await newTopic('order', 3);
      const inbox = new Inbox(deadlineMs);
      await subscribe({ groupId: groupId('order'), topics: [topic], handler: inbox.handler });

      const keys = ['execution-a', 'execution-b', 'execution-c'];
      const batch = (from: number) => Array.from({ length: 15 }, (_, i) => record(keys[(from + i) % 3], `${from + i}`));
      await queue.publish(topic, batch(0));
      await queue.publish(topic, batch(15));

      const messages = await inbox.waitFor(30, 'all 30 records');
      for (const key of keys) {
        const sequence = messages.filter((message) => message.key === key).map((message) => Number(text(message)));
        expect(sequence).toHaveLength(10);
        expect(sequence).toEqual([...sequence].sort((a, b) => a - b));
      }
    });

    it('two groups each receive every message', async () => {
      const topic = await newTopic('groups', 2);
      const indexer = new Inbox(deadlineMs);
      const api = new Inbox(deadlineMs);
      await Promise.all([
        subscribe({ groupId: groupId('indexer'), topics: [topic], handler: indexer.handler }),
        subscribe({ groupId: groupId('api'), topics: [topic], handler: api.handler }),
      ]);

      const values = Array.from({ length: 10 }, (_, i) => `update-${i}`);
      await queue.publish(
        topic,
        values.map((value, i) => record(`execution-${i}`, value)),
      );

      const seenByIndexer = (await indexer.waitFor(10, 'every message in the first group')).map(text);
      const seenByApi = (await api.waitFor(10, 'every message in the second group')).map(text);
      expect([...seenByIndexer].sort()).toEqual([...values].sort());
      expect([...seenByApi].sort()).toEqual([...values].sort());
    });

    it('two members of one group split the messages, each handled once across the group', async () => {
      const topic = await newTopic('split', 4);
      const group = groupId('controllers');
      const handledBy = new Map<string, string[]>();
      const both = new Inbox(deadlineMs);
      const member = (name: string) => async (message: QueueMessage) => {
        handledBy.set(text(message), [...(handledBy.get(text(message)) ?? []), name]);
        await both.handler(message);
      };
      await subscribe({ groupId: group, topics: [topic], handler: member('controller-1') });
      await subscribe({ groupId: group, topics: [topic], handler: member('controller-2') });

      const values = Array.from({ length: 20 }, (_, i) => `job-${i}`);
      await queue.publish(
        topic,
        values.map((value, i) => record(`task-run-${i}`, value)),
      );

      await both.waitFor(20, 'all 20 jobs across the group');
      expect([...handledBy.keys()].sort()).toEqual([...values].sort());
      for (const members of handledBy.values()) expect(members).toHaveLength(1);
      const members = new Set([...handledBy.values()].flat());
      expect(members).toEqual(new Set(['controller-1', 'controller-2']));
    });

    it('a handler failure redelivers the message until it succeeds, and nothing is lost or reordered', async () => {
      const topic = await newTopic('retry', 1);
      const attempts = new Map<string, number>();
      const inbox = new Inbox(deadlineMs);
      await subscribe({
        groupId: groupId('retry'),
        topics: [topic],
        handler: async (message) => {
          const attempt = (attempts.get(text(message)) ?? 0) + 1;
          attempts.set(text(message), attempt);
          if (text(message) === 'result-2' && attempt <= 2) throw new Error('repository unavailable');
          await inbox.handler(message);
        },
      });

      const values = Array.from({ length: 5 }, (_, i) => `result-${i}`);
      await queue.publish(
        topic,
        values.map((value) => record('execution-1', value)),
      );

      const handled = await inbox.waitFor(5, 'every result, the failing one included');
      expect(handled.map(text)).toEqual(values);
      expect(attempts.get('result-2')).toBe(3);
    });

    it('a batch handler gets what a partition has waiting, in order, one partition per batch, bounded', async () => {
      const topic = await newTopic('batches', 2);
      const batches: QueueMessage[][] = [];
      const inbox = new Inbox(deadlineMs);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      await subscribe({
        groupId: groupId('batches'),
        topics: [topic],
        handler: () => Promise.reject(new Error('the batch handler is the one called')),
        maxBatchMessages: 4,
        batchHandler: async (messages) => {
          batches.push([...messages]);
          // The first batch holds its partition until the rest is published: the rest waits for the next batches.
          if (batches.length === 1) await held;
          for (const message of messages) await inbox.handler(message);
        },
      });
      await queue.publish(topic, [record('execution-a', 'a-0')]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const values = Array.from({ length: 9 }, (_, i) => `a-${i + 1}`);
      await queue.publish(
        topic,
        values.map((value) => record('execution-a', value)),
      );
      release();
      const handled = await inbox.waitFor(10, 'every message of the partition');
      expect(handled.map(text)).toEqual(['a-0', ...values]);
      for (const batch of batches) {
        expect(batch.length).toBeLessThanOrEqual(4);
        expect(new Set(batch.map((message) => message.partition)).size).toBe(1);
      }
      // After the held first batch, what waited came in batches, not one by one.
      expect(batches.length).toBeLessThan(10);
    });

    it('a batch handler with a batch wait gets messages published a few ms apart together', async () => {
      const topic = await newTopic('batch-wait', 1);
      const batches: string[][] = [];
      const inbox = new Inbox(deadlineMs);
      await subscribe({
        groupId: groupId('batch-wait'),
        topics: [topic],
        handler: () => Promise.reject(new Error('the batch handler is the one called')),
        // At most the heartbeat interval of the Kafka contract queue.
        batchWaitMs: 500,
        batchHandler: async (messages) => {
          batches.push(messages.map(text));
          for (const message of messages) await inbox.handler(message);
        },
      });
      const values = Array.from({ length: 6 }, (_, i) => `w-${i}`);
      // Six publishes 10 ms apart: without a wait each would go as soon as it is there, one by one.
      const publishes: Promise<void>[] = [];
      for (const value of values) {
        publishes.push(queue.publish(topic, [record('execution-w', value)]));
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await Promise.all(publishes);
      const handled = await inbox.waitFor(values.length, 'every message published within the wait');
      expect(handled.map(text).sort()).toEqual(values);
      // One batch, or two when the wait of one Kafka fetch ended while they were being published (three when a
      // loaded machine spreads the six publishes over more than one wait); without the wait, about one each.
      expect(batches.length).toBeLessThanOrEqual(3);
    });

    it('closing a member while its batch waits for more hands nothing over twice and loses nothing', async () => {
      const topic = await newTopic('batch-wait-close', 1);
      const group = groupId('batch-wait-close');
      const first = new Inbox(deadlineMs);
      const member = await subscribe({
        groupId: group,
        topics: [topic],
        handler: () => Promise.reject(new Error('the batch handler is the one called')),
        batchWaitMs: 500,
        batchHandler: async (messages) => {
          for (const message of messages) await first.handler(message);
        },
      });
      await queue.publish(topic, [record('execution-c', 'waiting')]);
      // The message waits for more (unless the wait just ended): the close ends the wait.
      await member.close();

      const next = new Inbox(deadlineMs);
      await subscribe({ groupId: group, topics: [topic], handler: next.handler });
      await queue.publish(topic, [record('execution-c', 'after-close')]);
      await next.waitFor(first.messages.length === 0 ? 2 : 1, 'what the closed member left');
      expect([...first.messages, ...next.messages].map(text)).toEqual(['waiting', 'after-close']);
    });

    it('a batch handler failure delivers the same batch again until it succeeds; a new member hears of its share', async () => {
      const topic = await newTopic('batch-retry', 1);
      let attempts = 0;
      let assignments = 0;
      const inbox = new Inbox(deadlineMs);
      await queue.publish(
        topic,
        ['r-0', 'r-1', 'r-2'].map((value) => record('execution-1', value)),
      );
      await subscribe({
        groupId: groupId('batch-retry'),
        topics: [topic],
        handler: () => Promise.reject(new Error('the batch handler is the one called')),
        onAssignment: () => assignments++,
        batchHandler: async (messages) => {
          if (messages.some((message) => text(message) === 'r-1') && ++attempts <= 2) throw new Error('repository unavailable');
          for (const message of messages) await inbox.handler(message);
        },
      });
      const handled = await inbox.waitFor(3, 'every message, the failed batch included');
      expect(handled.map(text)).toEqual(['r-0', 'r-1', 'r-2']);
      expect(attempts).toBe(3);
      expect(assignments).toBeGreaterThanOrEqual(1);
    });

    it('a message whose handler never succeeded is redelivered to the next member after the first closes', async () => {
      const topic = await newTopic('handover', 1);
      const group = groupId('handover');
      const failed = new Inbox(deadlineMs);
      const first = await subscribe({
        groupId: group,
        topics: [topic],
        handler: async (message) => {
          await failed.handler(message);
          throw new Error('worker stream lost');
        },
      });
      await queue.publish(topic, [record('task-run-1', 'job-1')]);
      const [attempted] = await failed.waitFor(1, 'the first attempt');
      await first.close();

      const inbox = new Inbox(deadlineMs);
      await subscribe({ groupId: group, topics: [topic], handler: inbox.handler });
      const [redelivered] = await inbox.waitFor(1, 'the uncommitted message');
      expect(text(redelivered)).toBe('job-1');
      expect(redelivered.offset).toBe(attempted.offset);
    });

    it('aborting the signal closes a member even while it starts: a handler given up on is not retried, its message goes to the next member', async () => {
      const topic = await newTopic('abort-while-starting', 1);
      const group = groupId('abort-while-starting');
      await queue.publish(topic, [record('task-run-1', 'job-1')]);
      const stop = new AbortController();
      const started = new Inbox(deadlineMs);
      const subscribing = queue.subscribe({
        groupId: group,
        topics: [topic],
        fromBeginning: true,
        retry: fastRetry,
        signal: stop.signal,
        // Waits (for a worker's slot, say) until the member stops, then gives the message up.
        handler: async (message) => {
          await started.handler(message);
          await new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
          throw new Error('given up: the member is stopping');
        },
      });
      await started.waitFor(1, 'the handler to start');
      stop.abort();
      // Still starting (the adapter may wait for its first fetch) or started: either way the member is closed.
      const outcome = await subscribing.then(
        async (subscription) => {
          await subscription.close();
          return 'started';
        },
        (error: unknown) => (error instanceof SubscribeAborted ? 'aborted' : error),
      );
      expect(['started', 'aborted']).toContain(outcome);
      expect(started.messages).toHaveLength(1);

      const inbox = new Inbox(deadlineMs);
      await subscribe({ groupId: group, topics: [topic], handler: inbox.handler });
      const [redelivered] = await inbox.waitFor(1, 'the message given up on');
      expect(text(redelivered)).toBe('job-1');
      await expect(
        queue.subscribe({ groupId: group, topics: [topic], handler: inbox.handler, signal: stop.signal }),
      ).rejects.toThrow(SubscribeAborted);
    });

    it('closing waits for the running handler and commits its message', async () => {
      const topic = await newTopic('graceful', 1);
      const group = groupId('graceful');
      const started = new Inbox(deadlineMs);
      let finishHandler!: () => void;
      const handlerMayFinish = new Promise<void>((resolve) => (finishHandler = resolve));
      let finished = false;
      const first = await subscribe({
        groupId: group,
        topics: [topic],
        handler: async (message) => {
          await started.handler(message);
          await handlerMayFinish;
          finished = true;
        },
      });
      await queue.publish(topic, [record('task-run-1', 'job-1')]);
      await started.waitFor(1, 'the handler to start');

      const closing = first.close();
      finishHandler();
      await closing;
      expect(finished).toBe(true);

      // The next member starts after the committed message.
      await queue.publish(topic, [record('task-run-2', 'job-2')]);
      const inbox = new Inbox(deadlineMs);
      await subscribe({ groupId: group, topics: [topic], handler: inbox.handler });
      const [next] = await inbox.waitFor(1, 'the message after the committed one');
      expect(text(next)).toBe('job-2');
    });

    it.each([
      ['one message at a time', {}],
      [
        'several messages of each partition at once',
        { concurrency: { partitionsConsumedConcurrently: 3, messagesPerPartition: 4 } },
      ],
    ])('a member closed right after handling a burst (%s) leaves nothing to hand out again', async (_setting, extra) => {
      const topic = await newTopic('burst-then-close', 3);
      const group = groupId('burst-then-close');
      const burst = Array.from({ length: 60 }, (_, i) => record(`task-run-${i % 7}`, `job-${i}`));
      await queue.publish(topic, burst);
      const inbox = new Inbox(deadlineMs);
      const first = await subscribe({ groupId: group, topics: [topic], handler: inbox.handler, ...extra });
      await inbox.waitFor(burst.length, 'the burst to be handled');
      // Closed the moment the last handler resolved: its commit may still be on its way.
      await first.close();

      await queue.publish(topic, [record('task-run-0', 'after-close')]);
      const next = new Inbox(deadlineMs);
      await subscribe({ groupId: group, topics: [topic], handler: next.handler });
      const [message] = await next.waitFor(1, 'the message published after the close');
      expect(text(message)).toBe('after-close');
      // Nothing of the burst comes back, even a little later.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(next.messages.map(text)).toEqual(['after-close']);
    });

    it('pause stops delivery of that topic only, and resume delivers what was held', async () => {
      const jobs = await newTopic('paused-jobs', 1);
      const broadcast = await newTopic('broadcast', 1);
      const inbox = new Inbox(deadlineMs);
      const subscription = await subscribe({
        groupId: groupId('pause'),
        topics: [jobs, broadcast],
        handler: inbox.handler,
      });

      subscription.pause(jobs);
      expect(subscription.isPaused(jobs)).toBe(true);
      expect(subscription.isPaused(broadcast)).toBe(false);
      await queue.publish(jobs, [record('task-run-1', 'job-1'), record('task-run-1', 'job-2')]);
      await queue.publish(broadcast, [record('signal', 'kill-1')]);
      await inbox.waitFor(1, 'the broadcast while jobs are paused');
      // A second round trip on the live topic, so held jobs had every chance to leak.
      await queue.publish(broadcast, [record('signal', 'kill-2')]);
      await inbox.waitFor(2, 'the second broadcast');
      expect(inbox.messages.filter((message) => message.topic === jobs)).toEqual([]);

      subscription.resume(jobs);
      expect(subscription.isPaused(jobs)).toBe(false);
      await inbox.waitFor(4, 'the held jobs after resume');
      expect(inbox.messages.filter((message) => message.topic === jobs).map(text)).toEqual(['job-1', 'job-2']);
      expect(() => subscription.pause('lanner.not-subscribed')).toThrow(NotSubscribedError);
    });

    it('with every topic paused nothing is delivered; each resume delivers its own topic only', async () => {
      const jobs = await newTopic('all-paused-jobs', 2);
      const other = await newTopic('all-paused-other', 1);
      const inbox = new Inbox(deadlineMs);
      const subscription = await subscribe({ groupId: groupId('all-paused'), topics: [jobs, other], handler: inbox.handler });
      // Another group reads the same topics unpaused: once it has everything, the paused member had it within reach.
      const witness = new Inbox(deadlineMs);
      await subscribe({ groupId: groupId('all-paused-witness'), topics: [jobs, other], handler: witness.handler });

      subscription.pause(jobs);
      subscription.pause(other);
      await queue.publish(jobs, [record('task-run-1', 'job-1'), record('task-run-2', 'job-2'), record('task-run-1', 'job-3')]);
      await queue.publish(other, [record('signal', 'other-1')]);
      await witness.waitFor(4, 'every record, by the unpaused group');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(inbox.messages).toEqual([]);

      // Resuming the topic paused first, while the other stays paused.
      subscription.resume(jobs);
      await inbox.waitFor(3, 'the held jobs after their resume');
      await queue.publish(jobs, [record('task-run-3', 'job-4')]);
      await inbox.waitFor(4, 'a job published after the resume');
      expect(inbox.messages.map((message) => message.topic)).toEqual([jobs, jobs, jobs, jobs]);
      const jobsOf = (taskRun: string): string[] => inbox.messages.filter((message) => message.key === taskRun).map(text);
      expect(jobsOf('task-run-1')).toEqual(['job-1', 'job-3']);

      // Pausing every topic again, then resuming the one paused last.
      subscription.pause(jobs);
      await queue.publish(jobs, [record('task-run-4', 'job-5')]);
      await witness.waitFor(6, 'the job published while both topics are paused again');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(inbox.messages).toHaveLength(4);
      subscription.resume(jobs);
      await inbox.waitFor(5, 'the job held by the second pause');
      expect(text(inbox.messages[4])).toBe('job-5');

      subscription.resume(other);
      await inbox.waitFor(6, 'the other topic after its resume');
      expect(text(inbox.messages[5])).toBe('other-1');
    });

    it('createTopics is idempotent and keeps the partition count', async () => {
      const topic = await newTopic('idempotent', 3);
      await queue.createTopics([{ topic, partitions: 3 }]);
      await Promise.all([queue.createTopics([{ topic, partitions: 5 }]), queue.createTopics([{ topic }])]);

      const inbox = new Inbox(deadlineMs);
      await subscribe({ groupId: groupId('idempotent'), topics: [topic], handler: inbox.handler });
      await queue.publish(
        topic,
        Array.from({ length: 24 }, (_, i) => record(`task-run-${i}`, `job-${i}`)),
      );

      const messages = await inbox.waitFor(24, 'every record of the re-created topic');
      const partitions = new Set(messages.map((message) => message.partition));
      expect([...partitions].every((partition) => partition >= 0 && partition < 3)).toBe(true);
      expect(partitions.size).toBeGreaterThan(1);
    });

    /** The group's lag on the topic once it reads `expected`, or the last figure read when the deadline passes. */
    async function lagOnceSettled(group: string, topic: string, expected: number): Promise<number | undefined> {
      const deadline = Date.now() + deadlineMs;
      for (;;) {
        const lag = (await queue.consumerLag(group, [topic])).get(topic);
        if (lag === expected || Date.now() > deadline) return lag;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }

    it('the lag of a group is what it has not committed: N published, M handled, N - M left', async () => {
      const topic = await newTopic('lag', 1);
      const group = groupId('lag');
      await queue.publish(
        topic,
        Array.from({ length: 6 }, (_, i) => record('task-run-1', `job-${i}`)),
      );
      // A group that never consumed lags by everything on the topic.
      expect(await queue.consumerLag(group, [topic])).toEqual(new Map([[topic, 6]]));

      // The fifth job's handler does not finish: four are committed, two wait.
      const started = new Inbox(deadlineMs);
      let finishFifth!: () => void;
      const fifthMayFinish = new Promise<void>((resolve) => (finishFifth = resolve));
      await subscribe({
        groupId: group,
        topics: [topic],
        handler: async (message) => {
          await started.handler(message);
          if (text(message) === 'job-4') await fifthMayFinish;
        },
      });
      await started.waitFor(5, 'the first five jobs to start');
      expect(await lagOnceSettled(group, topic, 2)).toBe(2);

      finishFifth();
      await started.waitFor(6, 'the sixth job');
      expect(await lagOnceSettled(group, topic, 0)).toBe(0);
      await queue.publish(topic, [record('task-run-1', 'job-6')]);
      await started.waitFor(7, 'a job published later');
      expect(await lagOnceSettled(group, topic, 0)).toBe(0);
    });

    it('several messages of a partition at once: other keys overlap up to the limit, one key waits its turn, the commit stops at the first unfinished', async () => {
      const topic = await newTopic('overlapping', 1);
      const group = groupId('overlapping');
      // a-1 .. d-4 have keys of their own; e-5 waits for a free place; a-6 for a-1, whose key it shares.
      const values = ['a-1', 'b-2', 'c-3', 'd-4', 'e-5', 'a-6'];
      await queue.publish(
        topic,
        values.map((value) => record(value.slice(0, 1), value)),
      );
      const started = new Inbox(deadlineMs);
      const events: string[] = [];
      const finish = new Map<string, () => void>();
      const mayFinish = new Map(values.map((value) => [value, new Promise<void>((resolve) => finish.set(value, resolve))]));
      let running = 0;
      let mostRunning = 0;
      await subscribe({
        groupId: group,
        topics: [topic],
        concurrency: { partitionsConsumedConcurrently: 1, messagesPerPartition: 4 },
        handler: async (message) => {
          running += 1;
          mostRunning = Math.max(mostRunning, running);
          events.push(`start ${text(message)}`);
          await started.handler(message);
          await mayFinish.get(text(message));
          events.push(`end ${text(message)}`);
          running -= 1;
        },
      });
      const settleMs = 300;
      const names = (): string[] => started.messages.map(text);
      await started.waitFor(4, 'four messages of different keys at once');
      await new Promise((resolve) => setTimeout(resolve, settleMs));
      expect(names()).toEqual(['a-1', 'b-2', 'c-3', 'd-4']);
      expect(await lagOnceSettled(group, topic, 6)).toBe(6);

      for (const value of ['b-2', 'c-3', 'd-4']) finish.get(value)?.();
      await started.waitFor(5, 'e-5 once places are free');
      finish.get('e-5')?.();
      await new Promise((resolve) => setTimeout(resolve, settleMs));
      // a-6 still waits for a-1, and nothing after a-1 is committed while a-1 runs.
      expect(names()).toEqual(['a-1', 'b-2', 'c-3', 'd-4', 'e-5']);
      expect(await lagOnceSettled(group, topic, 6)).toBe(6);

      finish.get('a-1')?.();
      await started.waitFor(6, 'a-6 after a-1');
      finish.get('a-6')?.();
      expect(await lagOnceSettled(group, topic, 0)).toBe(0);
      expect(events.indexOf('start a-6')).toBeGreaterThan(events.indexOf('end a-1'));
      expect(mostRunning).toBe(4);
    });

    it('the lag sums the partitions, is kept per group and per topic, and names an unknown topic', async () => {
      const jobs = await newTopic('lag-partitions', 3);
      const other = await newTopic('lag-other', 2);
      const consumed = groupId('lag-consumed');
      const idle = groupId('lag-idle');
      await queue.publish(
        jobs,
        Array.from({ length: 12 }, (_, i) => record(`task-run-${i}`, `job-${i}`)),
      );
      await queue.publish(other, [record('task-run-x', 'other-job')]);
      expect(await queue.consumerLag(idle, [jobs, other])).toEqual(
        new Map([
          [jobs, 12],
          [other, 1],
        ]),
      );

      const inbox = new Inbox(deadlineMs);
      await subscribe({ groupId: consumed, topics: [jobs], handler: inbox.handler });
      const partitions = new Set((await inbox.waitFor(12, 'all twelve jobs')).map((message) => message.partition));
      expect(partitions.size).toBeGreaterThan(1);
      expect(await lagOnceSettled(consumed, jobs, 0)).toBe(0);
      // The consuming group never read `other`: it lags there by all of it.
      expect((await queue.consumerLag(consumed, [other])).get(other)).toBe(1);
      expect(await queue.consumerLag(idle, [])).toEqual(new Map());

      const missing = `lanner.contract.lag-missing.${randomUUID().slice(0, 8)}`;
      await expect(queue.consumerLag(idle, [jobs, missing])).rejects.toThrow(UnknownTopicError);
      await expect(queue.consumerLag(idle, [missing])).rejects.toThrow(`Topic "${missing}" does not exist`);
      await expect(queue.consumerLag('', [jobs])).rejects.toThrow('groupId must not be empty');
    });

    it('ping answers while the queue is open and fails once it is closed', async () => {
      await expect(queue.ping()).resolves.toBeUndefined();
      const other = await openQueue();
      await other.close();
      await expect(other.ping()).rejects.toThrow();
    });
  });
}

/** Collects delivered messages and lets a test wait for a count, failing with what was missing. */
class Inbox {
  readonly messages: QueueMessage[] = [];
  private readonly waiters: Array<{ count: number; resolve: () => void }> = [];

  constructor(private readonly deadlineMs: number) {}

  readonly handler = async (message: QueueMessage): Promise<void> => {
    this.messages.push(message);
    for (const waiter of [...this.waiters]) {
      if (this.messages.length >= waiter.count) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };

  async waitFor(count: number, what: string): Promise<QueueMessage[]> {
    if (this.messages.length < count) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve, reject) => {
        this.waiters.push({ count, resolve });
        timer = setTimeout(
          () => reject(new Error(`Waited for ${what}: ${count} messages expected, ${this.messages.length} arrived`)),
          this.deadlineMs,
        );
      }).finally(() => clearTimeout(timer));
    }
    return this.messages.slice(0, count);
  }
}
