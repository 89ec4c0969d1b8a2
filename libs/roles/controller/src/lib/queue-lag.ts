import { SYSTEM_WORKER_QUEUE_ID } from '@lanner/model';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Gauge } from 'prom-client';
import { workerJobsTopic } from '@lanner/frames';
import { UnknownTopicError, type QueuePort } from '@lanner/queue';
import { type Repositories } from '@lanner/repository';
import { MetricsRegistry, QUEUE, REPOSITORIES } from '@lanner/runtime';
import { CLOCK, type Clock } from './clock';
import { dispatchGroupId } from './job-dispatch';

/** Lag of each worker queue, keyed by queue id. */
export type LagByQueue = ReadonlyMap<string, number>;

/** One lag reading: per worker queue, and which groups subscribe to which queue. */
export interface QueueLagFigures {
  readonly byQueue: LagByQueue;
  readonly subscriptions: ReadonlyArray<{ readonly workerGroupId: string; readonly workerQueueId: string }>;
}

export interface CachedLagOptions {
  /** A new read starts only when the last one started at least this long ago. */
  readonly maxAgeMs: number;
  /** How long a caller waits for a read in progress before it gets the last figures. */
  readonly waitMs: number;
  readonly now: () => number;
  /** Called for the first failed read after a success (or the first read), not for each. */
  readonly onFailure: (error: unknown) => void;
  /** Called for the first successful read after failures. */
  readonly onRecovery: () => void;
}

/**
 * The last lag figures, refreshed by at most one read per `maxAgeMs` whoever
 * asks (scrapes of several Prometheus servers share it). `current()` never
 * rejects: a failed read keeps the figures of the last successful one (`initial`
 * before any), and a slow read (broker unreachable) is waited for only `waitMs`;
 * it goes on and updates the figures when it ends.
 */
export class CachedLag<T> {
  private figures: T;
  private lastStartMs: number | undefined;
  private reading: Promise<void> | undefined;
  private failing = false;

  constructor(
    private readonly read: () => Promise<T>,
    initial: T,
    private readonly options: CachedLagOptions,
  ) {
    this.figures = initial;
  }

  async current(): Promise<T> {
    const now = this.options.now();
    if (!this.reading && (this.lastStartMs === undefined || now - this.lastStartMs >= this.options.maxAgeMs)) {
      this.lastStartMs = now;
      this.reading = this.refresh().finally(() => (this.reading = undefined));
    }
    if (this.reading) await waitAtMost(this.reading, this.options.waitMs);
    return this.figures;
  }

  private async refresh(): Promise<void> {
    try {
      this.figures = await this.read();
      if (this.failing) this.options.onRecovery();
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.options.onFailure(error);
      this.failing = true;
    }
  }
}

async function waitAtMost(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** At most one lag read per this long per controller. */
export const QUEUE_LAG_MAX_AGE_MS = 5_000;
/** A scrape waits this long for a lag read before it shows the last figures. */
const QUEUE_LAG_SCRAPE_WAIT_MS = 2_000;
const QUEUES_READ_AT_ONCE = 8;

/**
 * `lanner_controller_worker_queue_lag{worker_queue}`: jobs on each worker
 * queue's topic that the controllers' consumer group has not taken yet, for
 * every worker queue of the topology (also those no connected worker serves,
 * where jobs pile up unseen). Read from the queue at scrape time (cached, see
 * CachedLag). The `system` queue is left out: its jobs are served by the
 * in-process system worker, never through the controllers' group.
 */
@Injectable()
export class QueueLag {
  private readonly logger = new Logger(QueueLag.name);
  private readonly lag: CachedLag<QueueLagFigures>;

  constructor(
    registry: MetricsRegistry,
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(CLOCK) clock: Clock,
  ) {
    this.lag = new CachedLag(
      () => this.readLag(),
      { byQueue: new Map(), subscriptions: [] },
      {
        maxAgeMs: QUEUE_LAG_MAX_AGE_MS,
        waitMs: QUEUE_LAG_SCRAPE_WAIT_MS,
        now: () => clock.nowMs(),
        onFailure: (error) =>
          this.logger.warn(
            { problem: firstLine(error) },
            'cannot read the lag of the worker queues; /metrics shows the last figures read',
          ),
        onRecovery: () => this.logger.log('the lag of the worker queues can be read again'),
      },
    );
    registry.gauge<'worker_queue'>({
      name: 'lanner_controller_worker_queue_lag',
      help:
        "Jobs waiting on the worker queue's topic, not yet taken by the controllers (a backlog to scale the worker groups on). " +
        'Cluster-wide: every controller reports the same figure, so aggregate with max, not sum. Read at most every 5 s.',
      labelNames: ['worker_queue'],
      collect: async () => {
        const { byQueue } = await this.lag.current();
        const gauge = registry.registry.getSingleMetric('lanner_controller_worker_queue_lag') as Gauge<'worker_queue'>;
        gauge.reset();
        for (const [queueId, jobs] of byQueue) gauge.set({ worker_queue: queueId }, jobs);
      },
    });
    registry.gauge<'worker_group' | 'worker_queue'>({
      name: 'lanner_controller_worker_group_queue_lag',
      help:
        'lanner_controller_worker_queue_lag of each worker queue the worker group subscribes to (a queue shared by several groups shows under each); ' +
        'sum by worker_group for the backlog a group could take. Cluster-wide, as lanner_controller_worker_queue_lag.',
      labelNames: ['worker_group', 'worker_queue'],
      collect: async () => {
        const { byQueue, subscriptions } = await this.lag.current();
        const gauge = registry.registry.getSingleMetric('lanner_controller_worker_group_queue_lag') as Gauge<
          'worker_group' | 'worker_queue'
        >;
        gauge.reset();
        for (const { workerGroupId, workerQueueId } of subscriptions) {
          const jobs = byQueue.get(workerQueueId);
          if (jobs !== undefined) gauge.set({ worker_group: workerGroupId, worker_queue: workerQueueId }, jobs);
        }
      },
    });
  }

  private async readLag(): Promise<QueueLagFigures> {
    const [queues, groups] = await Promise.all([this.repositories.workerQueues.list(), this.repositories.workerGroups.list()]);
    const queueIds = queues.map((queue) => queue.id).filter((id) => id !== SYSTEM_WORKER_QUEUE_ID);
    const byQueue = new Map<string, number>();
    // A few queues at a time: each read is a handful of broker requests.
    for (let from = 0; from < queueIds.length; from += QUEUES_READ_AT_ONCE) {
      const batch = queueIds.slice(from, from + QUEUES_READ_AT_ONCE);
      const lags = await Promise.allSettled(batch.map((queueId) => this.lagOf(queueId)));
      for (const [index, lag] of lags.entries()) {
        if (lag.status === 'rejected') throw lag.reason;
        byQueue.set(batch[index], lag.value);
      }
    }
    const subscriptions = groups.flatMap((group) =>
      group.subscriptions.map((subscription) => ({ workerGroupId: group.id, workerQueueId: subscription.workerQueueId })),
    );
    return { byQueue, subscriptions };
  }

  private async lagOf(queueId: string): Promise<number> {
    const topic = workerJobsTopic(queueId);
    try {
      return (await this.queue.consumerLag(dispatchGroupId(queueId), [topic])).get(topic) ?? 0;
    } catch (error) {
      // No topic yet (the first job or worker creates it): nothing waits.
      if (error instanceof UnknownTopicError) return 0;
      throw error;
    }
  }
}

/** Errors from drivers may span lines (code frames); one line says enough. */
function firstLine(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.split('\n')[0].slice(0, 300);
}
