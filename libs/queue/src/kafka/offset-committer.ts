/** Offsets to commit, by topic: the shape of kafkajs' `commitOffsetsIfNecessary`. */
export interface TopicOffsets {
  readonly topic: string;
  readonly partitions: ReadonlyArray<{ readonly partition: number; readonly offset: string }>;
}

/** Sends one OffsetCommit request for the group (bound to the member's current batch). */
export type CommitRequest = (topics: TopicOffsets[]) => Promise<void>;

interface Wanted {
  readonly topic: string;
  readonly partition: number;
  offset: string;
  readonly waiters: Array<{ resolve(): void; reject(error: unknown): void }>;
}

/**
 * The offset commits of one consumer group member, merged and kept off the
 * path of the next fetch. A handled message asks for its offset to be committed
 * and the member goes on at once (kafkajs fetches again only once a batch
 * returns, so a batch that waited for its commit held every later message back
 * by one round trip to the broker). One request is in flight at a time; every
 * offset asked for meanwhile, for any partition, leaves in the next one, the
 * latest offset of each partition winning.
 *
 * A commit that fails is not sent again: its messages are delivered again to
 * whoever reads the partition next (delivery is at least once), which is what
 * a failed commit has always meant. Sending it later could move a partition
 * that another member took over meanwhile back behind what that member committed.
 */
export class OffsetCommitter {
  private wanted = new Map<string, Wanted>();
  private inFlight: Promise<void> | undefined;
  private latestRequest: CommitRequest | undefined;

  /**
   * Commit `offset` (the next offset to read) for the partition, through the
   * newest `request` given. Resolves when the request carrying it succeeds;
   * rejects with that request's error.
   */
  commit(request: CommitRequest, topic: string, partition: number, offset: string): Promise<void> {
    this.latestRequest = request;
    return new Promise<void>((resolve, reject) => {
      const key = `${partition}:${topic}`;
      const wanted = this.wanted.get(key);
      if (wanted) {
        wanted.offset = offset;
        wanted.waiters.push({ resolve, reject });
      } else {
        this.wanted.set(key, { topic, partition, offset, waiters: [{ resolve, reject }] });
      }
      this.inFlight ??= this.send();
    });
  }

  /** Forgets the offsets not sent yet (the member rejoined its group: they may belong to another member now). */
  discardPending(reason: Error): void {
    const dropped = this.wanted;
    this.wanted = new Map();
    for (const wanted of dropped.values()) for (const waiter of wanted.waiters) waiter.reject(reason);
  }

  /** Resolves once every offset asked for so far has been sent and answered (whatever the answer). */
  async flush(): Promise<void> {
    while (this.inFlight) await this.inFlight;
  }

  private async send(): Promise<void> {
    // Offsets asked for in the same turn of the event loop share the first request too.
    await Promise.resolve();
    try {
      while (this.wanted.size > 0 && this.latestRequest) {
        const batch = [...this.wanted.values()];
        this.wanted = new Map();
        const byTopic = new Map<string, Array<{ partition: number; offset: string }>>();
        for (const { topic, partition, offset } of batch) {
          const partitions = byTopic.get(topic) ?? [];
          partitions.push({ partition, offset });
          byTopic.set(topic, partitions);
        }
        try {
          await this.latestRequest([...byTopic].map(([topic, partitions]) => ({ topic, partitions })));
          for (const wanted of batch) for (const waiter of wanted.waiters) waiter.resolve();
        } catch (error) {
          for (const wanted of batch) for (const waiter of wanted.waiters) waiter.reject(error);
        }
      }
    } finally {
      this.inFlight = undefined;
    }
  }
}
