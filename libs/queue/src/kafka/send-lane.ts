import type { QueueRecord } from '../queue.port';

/** Records of one publish call, all for one topic, within the topic's batch limit. */
export interface LaneSend {
  readonly topic: string;
  readonly records: readonly QueueRecord[];
  readonly sizeBytes: number;
}

interface Queued {
  readonly send: LaneSend;
  resolve(): void;
  reject(error: unknown): void;
}

export interface SendLaneOptions {
  /** One produce request carrying every send given (grouped by topic, in order). */
  readonly sendAll: (sends: readonly LaneSend[]) => Promise<void>;
  /** One send on its own: its error is its caller's. */
  readonly sendOne: (send: LaneSend) => Promise<void>;
  /** Whether an error of a merged request may belong to only some of its sends (an unknown topic, a record too large). */
  readonly isPerTopicError: (error: unknown) => boolean;
  /** Bytes of one topic in one request at most (the broker's record batch limit). */
  readonly maxTopicBytes: number;
}

/**
 * Publishes that arrive while a produce request is in flight leave together in
 * the next one, so a controller relaying hundreds of job events a second makes
 * a few requests instead of hundreds (the producer keeps one request in flight
 * per broker, so separate sends would also wait for each other). A publish of
 * a quiet moment goes at once.
 *
 * Only topics a send has already reached share requests. When a merged
 * request still fails with an error that may concern only some of its topics
 * (one was deleted meanwhile), each send is retried on its own, so only the caller whose topic is
 * unknown (or whose records are too large) sees the error; records of the
 * merged request that had reached the broker may then be written twice, which
 * consumers already allow (delivery is at least once). Any other error (the
 * broker is unreachable) fails every send of the request at once.
 */
export class SendLane {
  private queued: Queued[] = [];
  private flushing = false;
  /**
   * Topics a send has reached: only these go through the lane. A publish to a
   * topic that may not exist is sent on its own, beside the lane, so the
   * producer's retries for an unknown topic never hold up other callers.
   */
  private readonly proven = new Set<string>();

  constructor(private readonly options: SendLaneOptions) {}

  send(send: LaneSend): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const queued = { send, resolve, reject };
      // Not through the lane: the producer may retry an unknown topic for seconds, and nothing should wait behind that.
      if (!this.proven.has(send.topic)) return void this.sendAlone(queued);
      this.queued.push(queued);
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queued.length > 0) await this.sendNext(this.takeBatch());
    } finally {
      this.flushing = false;
    }
  }

  /** The queued sends that fit one request: each topic's bytes within the limit, first come first served. */
  private takeBatch(): Queued[] {
    const bytes = new Map<string, number>();
    const batch: Queued[] = [];
    const left: Queued[] = [];
    for (const queued of this.queued) {
      const { topic, sizeBytes } = queued.send;
      const used = bytes.get(topic) ?? 0;
      // A later send of a topic that no longer fits waits too, so a topic's records keep their order.
      if (
        batch.length > 0 &&
        (used + sizeBytes > this.options.maxTopicBytes || left.some((waiting) => waiting.send.topic === topic))
      ) {
        left.push(queued);
        continue;
      }
      bytes.set(topic, used + sizeBytes);
      batch.push(queued);
    }
    this.queued = left;
    return batch;
  }

  private async sendNext(batch: readonly Queued[]): Promise<void> {
    if (batch.length === 1) return this.sendAlone(batch[0]);
    try {
      await this.options.sendAll(batch.map((queued) => queued.send));
      for (const queued of batch) queued.resolve();
    } catch (error) {
      if (!this.options.isPerTopicError(error)) {
        for (const queued of batch) queued.reject(error);
        return;
      }
      for (const queued of batch) await this.sendAlone(queued);
    }
  }

  private async sendAlone(queued: Queued): Promise<void> {
    const { topic } = queued.send;
    try {
      await this.options.sendOne(queued.send);
      this.proven.add(topic);
      queued.resolve();
    } catch (error) {
      // A topic deleted meanwhile goes back to being sent alone.
      if (this.options.isPerTopicError(error)) this.proven.delete(topic);
      queued.reject(error);
    }
  }
}
