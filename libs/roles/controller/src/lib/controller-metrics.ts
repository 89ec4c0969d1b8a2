import { Inject, Injectable } from '@nestjs/common';
import type { Counter, Gauge, Histogram } from 'prom-client';
import { MetricsRegistry } from '@lanner/runtime';
import { CLOCK, type Clock } from './clock';
import { WorkerFleet } from './worker-fleet';

type SlotLabels = 'worker_group' | 'worker_queue';

/** Seconds; dispatch is normally milliseconds, a job waiting for a slot can take minutes. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.015, 0.02, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * The controller's Prometheus metrics. Slot gauges are computed at scrape time
 * from the ledgers of the connected workers (summed per worker group and
 * worker queue), so they never drift from what dispatch sees.
 */
@Injectable()
export class ControllerMetrics {
  private readonly dispatchedJobs: Counter<SlotLabels>;
  private readonly completedJobs: Counter<SlotLabels | 'state'>;
  private readonly latency: Histogram<SlotLabels | 'since'>;
  private slotCache: SlotEntry[] | undefined;

  constructor(
    registry: MetricsRegistry,
    private readonly fleet: WorkerFleet,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    const slotGauge = (name: string, help: string, pick: (slots: SlotFigures) => number): Gauge<SlotLabels> =>
      registry.gauge<SlotLabels>({
        name,
        help,
        labelNames: ['worker_group', 'worker_queue'],
        collect: () => {
          const gauge = registry.registry.getSingleMetric(name) as Gauge<SlotLabels>;
          gauge.reset();
          for (const { labels, figures } of this.slotFiguresOfScrape()) gauge.set(labels, pick(figures));
        },
      });
    slotGauge(
      'lanner_controller_worker_slots',
      'Slots of the connected workers serving the worker queue (each worker counts all its slots).',
      (figures) => figures.total,
    );
    slotGauge(
      'lanner_controller_worker_slots_used',
      'Slots held by running jobs of the worker queue.',
      (figures) => figures.used,
    );
    slotGauge(
      'lanner_controller_worker_slots_reserved',
      'Slots reserved for the worker queue by its subscription (reservedPercent).',
      (figures) => figures.reserved,
    );
    registry.gauge<'worker_group'>({
      name: 'lanner_controller_connected_workers',
      help: 'Workers connected to this controller.',
      labelNames: ['worker_group'],
      collect: () => {
        const gauge = registry.registry.getSingleMetric('lanner_controller_connected_workers') as Gauge<'worker_group'>;
        gauge.reset();
        const counts = new Map<string, number>();
        for (const session of this.fleet.all()) counts.set(session.workerGroupId, (counts.get(session.workerGroupId) ?? 0) + 1);
        for (const [group, count] of counts) gauge.set({ worker_group: group }, count);
      },
    });
    registry.gauge<'worker_queue'>({
      name: 'lanner_controller_jobs_waiting_for_slot',
      help: 'Jobs taken from a worker-queue topic by this controller that wait for a free slot (the rest of the backlog stays on the topic).',
      labelNames: ['worker_queue'],
      collect: () => {
        const gauge = registry.registry.getSingleMetric('lanner_controller_jobs_waiting_for_slot') as Gauge<'worker_queue'>;
        gauge.reset();
        const queueIds = new Set<string>();
        for (const { labels, figures } of this.slotFiguresOfScrape())
          if (figures.subscribers > 0) queueIds.add(labels.worker_queue);
        for (const queueId of queueIds) gauge.set({ worker_queue: queueId }, this.fleet.waiting(queueId));
      },
    });
    this.dispatchedJobs = registry.counter<SlotLabels>({
      name: 'lanner_controller_jobs_dispatched_total',
      help: 'Jobs sent to workers.',
      labelNames: ['worker_group', 'worker_queue'],
    });
    this.completedJobs = registry.counter<SlotLabels | 'state'>({
      name: 'lanner_controller_jobs_completed_total',
      help: 'Job results recorded, by final state.',
      labelNames: ['worker_group', 'worker_queue', 'state'],
    });
    this.latency = registry.histogram<SlotLabels | 'since'>({
      name: 'lanner_controller_dispatch_latency_seconds',
      help: "Time until a job's frame was sent to a worker: since='taken' from the moment the controller took it from the topic, since='queued' from when the executor published it.",
      labelNames: ['worker_group', 'worker_queue', 'since'],
      buckets: LATENCY_BUCKETS,
    });
  }

  /** A Job frame left: `takenAtMs` is performance.now() when the job was taken from its topic; `queuedAt` the job message's time. */
  jobDispatched(
    workerGroupId: string,
    queueId: string,
    takenAtMs: number,
    queuedAt: string | undefined,
    nowMs = performance.now(),
  ): void {
    const labels = { worker_group: workerGroupId, worker_queue: queueId };
    this.dispatchedJobs.inc(labels);
    this.latency.observe({ ...labels, since: 'taken' }, Math.max(0, nowMs - takenAtMs) / 1000);
    const queuedAtMs = queuedAt === undefined ? Number.NaN : Date.parse(queuedAt);
    // Clocks of two hosts may disagree a little; a negative difference says nothing.
    if (Number.isFinite(queuedAtMs))
      this.latency.observe({ ...labels, since: 'queued' }, Math.max(0, this.clock.nowMs() - queuedAtMs) / 1000);
  }

  jobCompleted(workerGroupId: string, queueId: string, state: string): void {
    this.completedJobs.inc({ worker_group: workerGroupId, worker_queue: queueId, state });
  }

  /**
   * The slot figures of the scrape under way: prom-client calls the three slot
   * gauges' `collect` one after the other in the same turn of the event loop, so
   * the sum of every subscription of thousands of workers is made once per scrape,
   * not three times, and forgotten before anything else runs.
   */
  private slotFiguresOfScrape(): SlotEntry[] {
    if (this.slotCache === undefined) {
      this.slotCache = this.slotFigures();
      queueMicrotask(() => (this.slotCache = undefined));
    }
    return this.slotCache;
  }

  private slotFigures(): SlotEntry[] {
    const entries: SlotEntry[] = [];
    const byGroup = new Map<string, Map<string, SlotFigures>>();
    for (const session of this.fleet.all()) {
      let byQueue = byGroup.get(session.workerGroupId);
      if (!byQueue) byGroup.set(session.workerGroupId, (byQueue = new Map()));
      const queues = byQueue;
      const slots = session.ledger.slots;
      // Visited rather than snapshotted: a scrape sums every ledger, thousands of them.
      session.ledger.forEachSubscription((workerQueueId, subscribed, used, reserved) => {
        let figures = queues.get(workerQueueId);
        if (!figures) {
          figures = { total: 0, used: 0, reserved: 0, subscribers: 0 };
          queues.set(workerQueueId, figures);
          entries.push({ labels: { worker_group: session.workerGroupId, worker_queue: workerQueueId }, figures });
        }
        if (subscribed) {
          figures.total += slots;
          figures.subscribers += 1;
        }
        figures.used += used;
        figures.reserved += reserved;
      });
    }
    return entries;
  }
}

interface SlotEntry {
  readonly labels: Record<SlotLabels, string>;
  readonly figures: SlotFigures;
}

interface SlotFigures {
  total: number;
  used: number;
  reserved: number;
  /** Workers subscribed to the queue (a worker whose subscription ended may still hold its jobs). */
  subscribers: number;
}
