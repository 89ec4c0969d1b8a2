import { Inject, Injectable, Logger } from '@nestjs/common';
import { DEFAULT_TOPIC_PARTITIONS } from '@lanner/frames';
import type { QueuePort } from '@lanner/queue';
import type { Repositories } from '@lanner/repository';
import { MetricsRegistry, QUEUE, REPOSITORIES, ServiceInstanceIdentity } from '@lanner/runtime';
import { PollingTriggers } from './polling-triggers';
import { ScheduleLoop, type ScheduleLoopMetrics } from './schedule-loop';
import { SCHEDULER_OPTIONS, type SchedulerOptions, schedulerTopics } from './scheduler-options';

const START_RETRY_MS = 2000;

/** Starts the schedule loop once the queue's topics exist, and stops it before the adapters close. */
@Injectable()
export class SchedulerService {
  private readonly logger = new Logger(SchedulerService.name);
  private readonly loop: ScheduleLoop;
  private readonly polling: PollingTriggers;
  private starting: Promise<void> | undefined;
  private stopped = false;

  constructor(
    @Inject(REPOSITORIES) repositories: Repositories,
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(SCHEDULER_OPTIONS) private readonly options: SchedulerOptions,
    identity: ServiceInstanceIdentity,
    metrics: MetricsRegistry,
  ) {
    const topics = schedulerTopics(options.topicPrefix);
    // The lease holder is this process's service instance: once the liveness registry shows it dead,
    // another scheduler takes its leases over at once (see TriggerRepository.claimDue).
    const holder = identity.id;
    this.polling = new PollingTriggers(
      repositories,
      queue,
      { pollTimeoutMs: options.pollTimeoutMs, topicPrefix: options.topicPrefix },
      holder,
      (tenantId, executions, now) => this.loop.announce(tenantId, executions, now),
    );
    this.loop = new ScheduleLoop(
      repositories,
      queue,
      topics.executor,
      options,
      holder,
      undefined,
      this.polling,
      scheduleLoopMetrics(metrics),
    );
  }

  onApplicationBootstrap(): void {
    this.starting = this.startWhenReachable();
  }

  /** Resolves once the loop runs (or the service was stopped first). */
  whenStarted(): Promise<void> {
    return this.starting ?? Promise.resolve();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.starting;
    await this.loop.stop();
    await this.polling.stop();
  }

  private async startWhenReachable(): Promise<void> {
    const topics = schedulerTopics(this.options.topicPrefix);
    while (!this.stopped) {
      try {
        await this.queue.createTopics(topics.ensured.map((topic) => ({ topic, partitions: DEFAULT_TOPIC_PARTITIONS })));
        this.polling.start();
        const announced = await this.loop.announceLeftovers();
        if (announced > 0) this.logger.log({ executions: announced }, 'announced executions a stopped scheduler had not');
        this.loop.start();
        this.logger.log({ holder: this.loop.holder, tickMs: this.options.tickMs }, 'scheduler evaluating schedules');
        return;
      } catch (error) {
        this.logger.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          `scheduler not started; trying again in ${START_RETRY_MS} ms`,
        );
        await new Promise((resolve) => setTimeout(resolve, START_RETRY_MS));
      }
    }
  }
}

/** Seconds; a step is normally milliseconds, a backlog on a loaded database seconds. */
const STEP_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds from a firing's date to its execution's commit. */
const DELAY_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 1, 2, 5, 10, 30, 60];

/** The loop's steps and firing delays as Prometheus histograms (`GET /metrics`). */
function scheduleLoopMetrics(registry: MetricsRegistry): ScheduleLoopMetrics {
  const steps = registry.histogram<'step'>({
    name: 'lanner_scheduler_step_seconds',
    help: 'How long each step of a claimed batch takes: claim, flows (read), evaluate, write, announce.',
    labelNames: ['step'],
    buckets: STEP_BUCKETS,
  });
  const delays = registry.histogram({
    name: 'lanner_scheduler_firing_delay_seconds',
    help: "From a schedule's due date to the commit of the execution it created.",
    buckets: DELAY_BUCKETS,
  });
  return {
    step: (step, seconds) => steps.observe({ step }, seconds),
    fired: (dueDates, writtenAt) => {
      for (const due of dueDates) delays.observe(Math.max(0, (writtenAt.getTime() - due.getTime()) / 1000));
    },
  };
}
