import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { decodeQueueMessage, executionUpdateCodec, NewerSchemaVersionError } from '@lanner/frames';
import type { QueuePort, QueueSubscription, SubscribeOptions } from '@lanner/queue';
import { QUEUE } from '@lanner/runtime';
import { API_TOPICS, type ApiTopics } from '../api-topics';

type Listener = () => void;

/** The Kafka adapter's option (the in-process one has no commit requests to save). */
type FollowOptions = SubscribeOptions & { commitOffsets: false };

/**
 * Follows `lanner.execution-updates` for this API process: a consumer group of
 * its own (every process sees every update), starting at the end of the topic.
 * Listeners are told that an execution changed; they re-read the repository,
 * which holds the truth (an update is only a hint, and may be missed).
 * The group's offsets are never committed: nobody reads them again (a restarted
 * process has a new group), so each update costs no commit request.
 */
@Injectable()
export class ExecutionUpdatesFeed implements OnModuleDestroy {
  private readonly logger = new Logger(ExecutionUpdatesFeed.name);
  private readonly listeners = new Map<string, Set<Listener>>();
  private subscription: QueueSubscription | undefined;
  private markStarted!: () => void;
  /** Resolves once the group is joined: updates published from then on are seen. */
  readonly started = new Promise<void>((resolve) => (this.markStarted = resolve));
  readonly groupId = `lanner-api-${randomBytes(6).toString('hex')}`;

  constructor(
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(API_TOPICS) private readonly topics: ApiTopics,
  ) {}

  async start(): Promise<void> {
    if (this.subscription !== undefined) return;
    const options: FollowOptions = {
      groupId: this.groupId,
      commitOffsets: false,
      topics: [this.topics.executionUpdates],
      fromBeginning: false,
      handler: async (message) => {
        try {
          const update = decodeQueueMessage(executionUpdateCodec, message.value);
          this.notify(update.payload.executionId);
        } catch (error) {
          // A hint we cannot read is skipped (followers still poll); retrying it would stall the partition.
          const reason = error instanceof NewerSchemaVersionError ? 'written by a newer Lanner' : 'invalid';
          this.logger.warn(
            { topic: message.topic, partition: message.partition, offset: message.offset, reason },
            'execution update skipped',
          );
        }
      },
    };
    this.subscription = await this.queue.subscribe(options);
    this.markStarted();
  }

  /** Calls `listener` whenever an update for the execution arrives, until the returned function is called. */
  listen(executionId: string, listener: Listener): () => void {
    let set = this.listeners.get(executionId);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(executionId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(executionId) === set) this.listeners.delete(executionId);
    };
  }

  private notify(executionId: string): void {
    for (const listener of this.listeners.get(executionId) ?? []) listener();
  }

  async onModuleDestroy(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = undefined;
    await subscription?.close();
  }
}
