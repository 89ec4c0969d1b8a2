import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { decodeQueueMessage, executionUpdateCodec, NewerSchemaVersionError } from '@lanner/frames';
import type { QueuePort, QueueSubscription, SubscribeOptions } from '@lanner/queue';
import type { ExecutionWithTaskRuns } from '@lanner/model';
import { QUEUE } from '@lanner/runtime';
import { API_TOPICS, type ApiTopics } from '../api-topics';

/**
 * What an update says about the execution: its stored version after the change and whether it
 * ended, and when it ended, mostly, the execution as the repository reads it after that change.
 */
export interface ExecutionChange {
  readonly version: number;
  readonly ended: boolean;
  readonly execution?: ExecutionWithTaskRuns;
}

type Listener = (change: ExecutionChange) => void;

/**
 * How many ended executions the feed remembers, so a follower that starts listening
 * just after the end (a `?wait=true` whose execution ran before the listener was in
 * place) is told at once instead of at its next slow poll.
 */
const RECENTLY_ENDED_LIMIT = 10_000;
/** Of those, how many it keeps the carried execution of (each at most MAX_CARRIED_EXECUTION_BYTES on the wire). */
const RECENTLY_CARRIED_LIMIT = 1_000;

/** The Kafka adapter's option (the in-process one has no commit requests to save). */
type FollowOptions = SubscribeOptions & { commitOffsets: false };

/**
 * Follows `lanner.execution-updates` for this API process: a consumer group of
 * its own (every process sees every update), starting at the end of the topic.
 * Listeners are told that an execution changed (its version, whether it ended);
 * they re-read the repository, which holds the truth (an update is only a hint,
 * and may be missed), unless the update of its end carried the ended execution.
 * The group's offsets are never committed: nobody reads them again (a restarted
 * process has a new group), so each update costs no commit request.
 */
@Injectable()
export class ExecutionUpdatesFeed implements OnModuleDestroy {
  private readonly logger = new Logger(ExecutionUpdatesFeed.name);
  private readonly listeners = new Map<string, Set<Listener>>();
  /** Execution id -> the version it ended at; the oldest forgotten first (a Map iterates in insertion order). */
  private readonly recentlyEnded = new Map<string, number>();
  /** Execution id -> the ended execution its last update carried, for the most recent ones. */
  private readonly recentlyCarried = new Map<string, ExecutionWithTaskRuns>();
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
          const { tenantId, executionId, version, ended } = update.payload;
          // The executor's copy of the repository's read (its states are the repository's), when it is the one announced.
          const execution = update.payload.execution as ExecutionWithTaskRuns | undefined;
          const carried =
            ended && execution?.id === executionId && execution.tenantId === tenantId && execution.version === version;
          this.notify(executionId, { version, ended, ...(carried ? { execution } : {}) });
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

  /**
   * Calls `listener` whenever an update for the execution arrives, until the returned
   * function is called; at once (in a microtask) when the execution ended shortly before.
   */
  listen(executionId: string, listener: Listener): () => void {
    const endedAt = this.recentlyEnded.get(executionId);
    if (endedAt !== undefined) {
      const execution = this.recentlyCarried.get(executionId);
      const change = { version: endedAt, ended: true, ...(execution?.version === endedAt ? { execution } : {}) };
      queueMicrotask(() => listener(change));
    }
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

  private notify(executionId: string, change: ExecutionChange): void {
    if (change.ended) {
      this.recentlyEnded.delete(executionId);
      this.recentlyEnded.set(executionId, change.version);
      forgetOldest(this.recentlyEnded, RECENTLY_ENDED_LIMIT);
      this.recentlyCarried.delete(executionId);
      if (change.execution !== undefined) {
        this.recentlyCarried.set(executionId, change.execution);
        forgetOldest(this.recentlyCarried, RECENTLY_CARRIED_LIMIT);
      }
    }
    for (const listener of this.listeners.get(executionId) ?? []) listener(change);
  }

  async onModuleDestroy(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = undefined;
    await subscription?.close();
  }
}

/** Keeps `map` to `limit` entries by forgetting the oldest (a Map iterates in insertion order). */
function forgetOldest<V>(map: Map<string, V>, limit: number): void {
  while (map.size > limit) {
    const oldest = map.keys().next();
    if (oldest.done === true) return;
    map.delete(oldest.value);
  }
}
