import type {
  BatchHandler,
  MessageHandler,
  QueueMessage,
  QueuePort,
  QueueRecord,
  QueueSubscription,
  RetryBackoff,
  SubscribeOptions,
  TopicSpec,
} from '../queue.port';
import { NotSubscribedError, QueueClosedError, QueueConfigError, SubscribeAborted, UnknownTopicError } from '../queue.errors';
import { describeError, silentQueueLogger, type QueueLogger } from '../queue.logger';
import { assertTopicName } from '../topic-name';
import { retryDelayMs, sleepUnlessAborted } from '../retry-backoff';
import { partitionForKey } from './partition-for-key';

export interface InProcessQueueOptions {
  /** Partitions of a topic created without a count; default 4. */
  partitions?: number;
  logger?: QueueLogger;
}

/**
 * The queue for `standalone` and tests: the same semantics as the Kafka adapter
 * (keyed partitions, consumer groups, commit after handling, pause/resume,
 * retries), held in memory. Nothing survives the process: after a restart the
 * executor rebuilds pending work from the repository.
 */
export function createInProcessQueue(options: InProcessQueueOptions = {}): QueuePort {
  const defaultPartitions = options.partitions ?? 4;
  if (!Number.isInteger(defaultPartitions) || defaultPartitions < 1) {
    throw new QueueConfigError(`partitions must be a positive integer, got ${String(options.partitions)}`);
  }
  return new InProcessQueue(defaultPartitions, options.logger ?? silentQueueLogger);
}

interface StoredRecord {
  key: string;
  value: Buffer;
  headers: Record<string, string>;
}

/** One partition's records; `baseOffset` is the offset of `records[0]` once older ones are trimmed. */
class PartitionLog {
  baseOffset = 0;
  records: StoredRecord[] = [];

  get endOffset(): number {
    return this.baseOffset + this.records.length;
  }

  read(offset: number): StoredRecord | undefined {
    return this.records[offset - this.baseOffset];
  }

  /** Drops records below `offset`, in chunks so that trimming stays cheap per commit. */
  trimBelow(offset: number): void {
    const droppable = offset - this.baseOffset;
    if (droppable >= 1024 || (droppable > 0 && droppable * 2 >= this.records.length)) {
      this.records.splice(0, droppable);
      this.baseOffset = offset;
    }
  }
}

/** Wakes a waiting partition pump; a notify with nobody waiting is dropped (the pump re-checks state first). */
class Wakeup {
  private resolveWaiter: (() => void) | undefined;

  next(): Promise<void> {
    return new Promise((resolve) => {
      this.resolveWaiter = resolve;
    });
  }

  notify(): void {
    const resolve = this.resolveWaiter;
    this.resolveWaiter = undefined;
    resolve?.();
  }
}

type PartitionRef = `${string}#${number}`;
const partitionRef = (topic: string, partition: number): PartitionRef => `${topic}#${partition}`;

/** The loop that hands one partition's messages, in order, to the member that owns it. */
interface PartitionPump {
  member: GroupMember;
  topic: string;
  partition: number;
  stopped: boolean;
  wakeup: Wakeup;
  /** Cuts a retry backoff short when the pump stops. */
  abort: AbortController;
  done: Promise<void>;
}

interface GroupMember {
  memberId: number;
  groupId: string;
  topics: ReadonlySet<string>;
  fromBeginning: boolean;
  handler: MessageHandler;
  batchHandler: BatchHandler | undefined;
  maxBatchMessages: number;
  /** How long a batch of fewer than `maxBatchMessages` waits for more (see SubscribeOptions.batchWaitMs). */
  batchWaitMs: number;
  /** Handlers of one partition running at once (see SubscribeConcurrency.messagesPerPartition); 1 for a batch handler. */
  messagesPerPartition: number;
  onAssignment: (() => void) | undefined;
  retry: RetryBackoff | undefined;
  paused: Set<string>;
  pumps: Set<PartitionPump>;
}

interface ConsumerGroup {
  groupId: string;
  members: GroupMember[];
  /** Next offset to handle per partition (Kafka's committed offset). */
  committed: Map<PartitionRef, number>;
  owners: Map<PartitionRef, PartitionPump>;
  /** Stopped pumps whose running handler has not finished yet; the next owner waits for them. */
  draining: Map<PartitionRef, Promise<void>>;
}

const yieldEvery = 64;

class InProcessQueue implements QueuePort {
  private readonly topics = new Map<string, PartitionLog[]>();
  private readonly groups = new Map<string, ConsumerGroup>();
  private readonly subscriptions = new Set<InProcessSubscription>();
  private nextMemberId = 1;
  private closed = false;

  constructor(
    private readonly defaultPartitions: number,
    private readonly logger: QueueLogger,
  ) {}

  async createTopics(specs: TopicSpec[]): Promise<void> {
    this.assertOpen();
    for (const spec of specs) {
      assertTopicName(spec.topic);
      const partitions = spec.partitions ?? this.defaultPartitions;
      if (!Number.isInteger(partitions) || partitions < 1) {
        throw new QueueConfigError(`Topic "${spec.topic}": partitions must be a positive integer, got ${partitions}`);
      }
      if (!this.topics.has(spec.topic)) {
        this.topics.set(
          spec.topic,
          Array.from({ length: partitions }, () => new PartitionLog()),
        );
      }
    }
    // Members subscribed before a delete-and-recreate get the new partitions.
    for (const group of this.groups.values()) this.rebalance(group);
  }

  async deleteTopics(topics: string[]): Promise<void> {
    this.assertOpen();
    for (const topic of topics) {
      this.topics.delete(topic);
      for (const group of this.groups.values()) {
        for (const ref of group.committed.keys()) {
          if (ref.startsWith(`${topic}#`)) group.committed.delete(ref);
        }
      }
    }
    for (const group of this.groups.values()) this.rebalance(group);
  }

  async publish(topic: string, records: QueueRecord[]): Promise<void> {
    this.assertOpen();
    const partitions = this.topicLog(topic);
    const touched = new Set<number>();
    for (const record of records) {
      const partition = partitionForKey(record.key, partitions.length);
      // Copies, as Kafka would serialize: the publisher may reuse its buffers.
      partitions[partition].records.push({
        key: record.key,
        value: Buffer.from(record.value),
        headers: { ...record.headers },
      });
      touched.add(partition);
    }
    for (const group of this.groups.values()) {
      for (const partition of touched) group.owners.get(partitionRef(topic, partition))?.wakeup.notify();
    }
  }

  async subscribe(options: SubscribeOptions): Promise<QueueSubscription> {
    this.assertOpen();
    if (options.groupId.length === 0) throw new QueueConfigError('groupId must not be empty');
    if (options.topics.length === 0) throw new QueueConfigError('topics must not be empty');
    const maxBatch = options.maxBatchMessages;
    if (maxBatch !== undefined && (!Number.isInteger(maxBatch) || maxBatch < 1)) {
      throw new QueueConfigError(`maxBatchMessages must be a positive integer, got ${maxBatch}`);
    }
    const batchWaitMs = options.batchWaitMs;
    if (batchWaitMs !== undefined && (!Number.isInteger(batchWaitMs) || batchWaitMs < 0)) {
      throw new QueueConfigError(`batchWaitMs must be a non-negative integer, got ${batchWaitMs}`);
    }
    for (const [setting, value] of Object.entries(options.concurrency ?? {})) {
      if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
        throw new QueueConfigError(`concurrency.${setting} must be a positive integer, got ${String(value)}`);
      }
    }
    for (const topic of options.topics) this.topicLog(topic);

    if (options.signal?.aborted) throw new SubscribeAborted(options.groupId);
    let group = this.groups.get(options.groupId);
    if (!group) {
      group = { groupId: options.groupId, members: [], committed: new Map(), owners: new Map(), draining: new Map() };
      this.groups.set(options.groupId, group);
    }
    const member: GroupMember = {
      memberId: this.nextMemberId++,
      groupId: options.groupId,
      topics: new Set(options.topics),
      fromBeginning: options.fromBeginning ?? false,
      handler: options.handler,
      batchHandler: options.batchHandler,
      maxBatchMessages: options.maxBatchMessages ?? 100,
      batchWaitMs: options.batchHandler !== undefined ? (batchWaitMs ?? 0) : 0,
      // Every partition has a pump of its own, so `partitionsConsumedConcurrently` is always all of them.
      messagesPerPartition: options.batchHandler !== undefined ? 1 : (options.concurrency?.messagesPerPartition ?? 1),
      onAssignment: options.onAssignment,
      retry: options.retry,
      paused: new Set(),
      pumps: new Set(),
    };
    group.members.push(member);
    this.rebalance(group);

    const subscription = new InProcessSubscription(member, () => this.leave(member));
    this.subscriptions.add(subscription);
    subscription.closed.then(() => this.subscriptions.delete(subscription));
    const closeOnAbort = () => void subscription.close();
    options.signal?.addEventListener('abort', closeOnAbort, { once: true });
    void subscription.closed.then(() => options.signal?.removeEventListener('abort', closeOnAbort));
    return subscription;
  }

  async consumerLag(groupId: string, topics: readonly string[]): Promise<ReadonlyMap<string, number>> {
    this.assertOpen();
    if (groupId.length === 0) throw new QueueConfigError('groupId must not be empty');
    const group = this.groups.get(groupId);
    const lag = new Map<string, number>();
    for (const topic of topics) {
      let records = 0;
      this.topicLog(topic).forEach((log, partition) => {
        // A partition never committed on counts from its first retained record.
        const committed = Math.max(group?.committed.get(partitionRef(topic, partition)) ?? log.baseOffset, log.baseOffset);
        records += Math.max(0, log.endOffset - committed);
      });
      lag.set(topic, records);
    }
    return lag;
  }

  async ping(): Promise<void> {
    this.assertOpen();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    this.topics.clear();
    this.groups.clear();
  }

  private assertOpen(): void {
    if (this.closed) throw new QueueClosedError();
  }

  private topicLog(topic: string): PartitionLog[] {
    const partitions = this.topics.get(topic);
    if (!partitions) throw new UnknownTopicError(topic);
    return partitions;
  }

  private async leave(member: GroupMember): Promise<void> {
    const group = this.groups.get(member.groupId);
    if (group) {
      group.members = group.members.filter((candidate) => candidate !== member);
      this.rebalance(group);
    }
    // Pumps stop after their running handler resolves and is committed.
    await Promise.all([...member.pumps].map((pump) => pump.done));
  }

  /**
   * Assigns each partition of the group's topics to one member (round robin in
   * join order). A partition that changes owner is handed over only after the
   * previous owner's running handler has finished and committed, so one group
   * never handles a partition twice at the same time.
   */
  private rebalance(group: ConsumerGroup): void {
    const wanted = new Map<PartitionRef, { member: GroupMember; topic: string; partition: number }>();
    const topicsOfGroup = new Set(group.members.flatMap((member) => [...member.topics]));
    for (const topic of topicsOfGroup) {
      const partitions = this.topics.get(topic);
      if (!partitions) continue;
      const candidates = group.members.filter((member) => member.topics.has(topic));
      for (let partition = 0; partition < partitions.length; partition++) {
        wanted.set(partitionRef(topic, partition), {
          member: candidates[partition % candidates.length],
          topic,
          partition,
        });
      }
    }

    // Every member whose share changes hears of it before it handles a message of its new share.
    const changed = new Set<GroupMember>();
    for (const [ref, current] of group.owners) {
      if (wanted.get(ref)?.member !== current.member) {
        changed.add(current.member);
        stopPump(current);
        group.owners.delete(ref);
        const draining = current.done;
        group.draining.set(ref, draining);
        void draining.then(() => {
          if (group.draining.get(ref) === draining) group.draining.delete(ref);
        });
      }
    }
    for (const [ref, assignment] of wanted) if (!group.owners.has(ref)) changed.add(assignment.member);
    for (const member of changed) if (group.members.includes(member)) member.onAssignment?.();
    for (const [ref, assignment] of wanted) {
      if (group.owners.has(ref)) continue;
      const previous = group.draining.get(ref);
      const pump: PartitionPump = {
        member: assignment.member,
        topic: assignment.topic,
        partition: assignment.partition,
        stopped: false,
        wakeup: new Wakeup(),
        abort: new AbortController(),
        done: Promise.resolve(),
      };
      // The reset position (first or next record) is committed at once, as the
      // group's position: a record published after `subscribe` resolves is never
      // taken for an old one, and a record whose handler keeps failing is still
      // redelivered after a rebalance.
      if (!group.committed.has(ref)) group.committed.set(ref, this.resetOffset(pump));
      pump.done = (previous ?? Promise.resolve())
        .then(() => this.runPump(group, pump, group.committed.get(ref) ?? this.resetOffset(pump)))
        .catch((error: unknown) => {
          this.logger.error(
            { topic: pump.topic, partition: pump.partition, groupId: group.groupId, error: describeError(error) },
            'in-process queue: partition pump failed',
          );
        })
        .finally(() => assignment.member.pumps.delete(pump));
      assignment.member.pumps.add(pump);
      group.owners.set(ref, pump);
    }
  }

  private resetOffset(pump: PartitionPump): number {
    const log = this.topics.get(pump.topic)?.[pump.partition];
    if (!log) return 0;
    return pump.member.fromBeginning ? log.baseOffset : log.endOffset;
  }

  private async runPump(group: ConsumerGroup, pump: PartitionPump, startOffset: number): Promise<void> {
    if (pump.member.messagesPerPartition > 1) return this.runOverlappingPump(group, pump, startOffset);
    const ref = partitionRef(pump.topic, pump.partition);
    let position = startOffset;
    let sinceYield = 0;
    while (!pump.stopped) {
      const log = this.topics.get(pump.topic)?.[pump.partition];
      if (!log) return;
      if (pump.member.paused.has(pump.topic) || position >= log.endOffset) {
        await pump.wakeup.next();
        continue;
      }
      position = Math.max(position, log.baseOffset);
      if (pump.member.batchWaitMs > 0 && log.endOffset - position < pump.member.maxBatchMessages) {
        await this.waitForFullBatch(pump, log, position);
        // Stopped, paused or the topic deleted meanwhile: look again.
        if (pump.stopped || pump.member.paused.has(pump.topic) || this.topics.get(pump.topic)?.[pump.partition] !== log) continue;
      }
      const record = log.read(position);
      if (!record) throw new Error(`offset ${position} missing in ${ref}`);
      const batchHandler = pump.member.batchHandler;
      const count = batchHandler === undefined ? 1 : Math.min(pump.member.maxBatchMessages, log.endOffset - position);
      const handled =
        batchHandler === undefined
          ? await this.handleWithRetry(pump, record, position)
          : await this.handleWithRetry(pump, record, position, (first) => {
              const messages = [first];
              for (let offset = position + 1; offset < position + count; offset++) {
                messages.push(this.delivery(pump, log.read(offset) as StoredRecord, offset));
              }
              return batchHandler(messages);
            });
      if (!handled) return; // stopped during a retry: left uncommitted for the next owner
      position += count;
      this.commit(group, ref, position);
      // Handlers that resolve at once would otherwise starve timers and I/O.
      if (++sinceYield >= yieldEvery) {
        sinceYield = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
  }

  /**
   * A partition whose messages overlap, up to `messagesPerPartition` at once: a
   * message waits for the one before it with the same key, and the partition is
   * committed up to the first message not handled yet. Once stopped, it starts
   * nothing more and resolves after the running handlers (what they leave
   * unhandled stays uncommitted for the next owner).
   */
  private async runOverlappingPump(group: ConsumerGroup, pump: PartitionPump, startOffset: number): Promise<void> {
    const ref = partitionRef(pump.topic, pump.partition);
    const limit = pump.member.messagesPerPartition;
    const running = new Set<Promise<void>>();
    /** The last running message of each key, which the next message of that key waits for. */
    const lastOfKey = new Map<string, Promise<boolean>>();
    const handled = new Set<number>();
    let committed = startOffset;
    let position = startOffset;
    let sinceYield = 0;
    // What finished is committed also after a stop, as one at a time: the next owner starts once this pump is done.
    const settle = (offset: number, done: boolean): void => {
      if (done) handled.add(offset);
      const before = committed;
      while (handled.delete(committed)) committed += 1;
      if (committed > before) this.commit(group, ref, committed);
      pump.wakeup.notify();
    };
    while (!pump.stopped) {
      const log = this.topics.get(pump.topic)?.[pump.partition];
      if (!log) break;
      if (pump.member.paused.has(pump.topic) || position >= log.endOffset || running.size >= limit) {
        await pump.wakeup.next();
        continue;
      }
      if (position < log.baseOffset) {
        position = log.baseOffset;
        if (running.size === 0) committed = Math.max(committed, position);
      }
      const offset = position;
      const record = log.read(offset);
      if (!record) throw new Error(`offset ${offset} missing in ${ref}`);
      position += 1;
      const before = lastOfKey.get(record.key);
      const handling = (before ?? Promise.resolve(true)).then((previousDone) =>
        previousDone && !pump.stopped ? this.handleWithRetry(pump, record, offset) : false,
      );
      lastOfKey.set(record.key, handling);
      const tracked = handling.then((done) => {
        if (lastOfKey.get(record.key) === handling) lastOfKey.delete(record.key);
        running.delete(tracked);
        settle(offset, done);
      });
      running.add(tracked);
      if (++sinceYield >= yieldEvery) {
        sinceYield = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    await Promise.all(running);
  }

  /**
   * Waits until the partition holds a full batch from `position`, `batchWaitMs`
   * have passed, or the pump stops (close, rebalance), whichever comes first.
   */
  private async waitForFullBatch(pump: PartitionPump, log: PartitionLog, position: number): Promise<void> {
    const deadline = performance.now() + pump.member.batchWaitMs;
    for (;;) {
      const left = deadline - performance.now();
      if (pump.stopped || left <= 0 || log.endOffset - position >= pump.member.maxBatchMessages) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([pump.wakeup.next(), new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))]);
      clearTimeout(timer);
    }
  }

  private delivery(pump: PartitionPump, record: StoredRecord, offset: number): QueueMessage {
    return {
      topic: pump.topic,
      partition: pump.partition,
      offset: String(offset),
      key: record.key,
      // A fresh copy per delivery: a handler that mutates its buffer must not change a redelivery.
      value: Buffer.from(record.value),
      headers: { ...record.headers },
    };
  }

  /** Retries the message (or the group that starts with it, through `handle`) until it succeeds; false once the pump stops. */
  private async handleWithRetry(
    pump: PartitionPump,
    record: StoredRecord,
    offset: number,
    handle: (message: QueueMessage) => Promise<void> = (message) => pump.member.handler(message),
  ): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      const message = this.delivery(pump, record, offset);
      try {
        await handle(message);
        return true;
      } catch (error) {
        const delayMs = retryDelayMs(attempt, pump.member.retry);
        this.logger.warn(
          {
            topic: pump.topic,
            partition: pump.partition,
            offset: message.offset,
            groupId: pump.member.groupId,
            attempt,
            retryInMs: delayMs,
            error: describeError(error),
          },
          'queue handler failed; the message will be retried',
        );
        if (pump.stopped) return false;
        await sleepUnlessAborted(delayMs, pump.abort.signal);
        if (pump.stopped) return false;
      }
    }
  }

  private commit(group: ConsumerGroup, ref: PartitionRef, nextOffset: number): void {
    group.committed.set(ref, nextOffset);
    const [topic, partitionText] = splitRef(ref);
    const log = this.topics.get(topic)?.[Number(partitionText)];
    if (!log) return;
    // Keep a record until every group that consumes the topic has committed past it.
    let lowest = nextOffset;
    for (const other of this.groups.values()) {
      if (!other.members.some((member) => member.topics.has(topic)) && !other.committed.has(ref)) continue;
      lowest = Math.min(lowest, other.committed.get(ref) ?? log.baseOffset);
    }
    log.trimBelow(lowest);
  }
}

function splitRef(ref: PartitionRef): [string, string] {
  const at = ref.lastIndexOf('#');
  return [ref.slice(0, at), ref.slice(at + 1)];
}

function stopPump(pump: PartitionPump): void {
  pump.stopped = true;
  pump.abort.abort();
  pump.wakeup.notify();
}

class InProcessSubscription implements QueueSubscription {
  private closing: Promise<void> | undefined;
  private resolveClosed!: () => void;
  /** Resolves once the subscription has fully closed. */
  readonly closed = new Promise<void>((resolve) => {
    this.resolveClosed = resolve;
  });

  constructor(
    readonly member: GroupMember,
    private readonly leave: () => Promise<void>,
  ) {}

  pause(topic: string): void {
    this.assertSubscribed(topic);
    this.member.paused.add(topic);
  }

  resume(topic: string): void {
    this.assertSubscribed(topic);
    if (!this.member.paused.delete(topic)) return;
    for (const pump of this.member.pumps) {
      if (pump.topic === topic) pump.wakeup.notify();
    }
  }

  isPaused(topic: string): boolean {
    return this.member.paused.has(topic);
  }

  close(): Promise<void> {
    this.closing ??= this.leave().then(() => this.resolveClosed());
    return this.closing;
  }

  private assertSubscribed(topic: string): void {
    if (!this.member.topics.has(topic)) throw new NotSubscribedError(topic);
  }
}
