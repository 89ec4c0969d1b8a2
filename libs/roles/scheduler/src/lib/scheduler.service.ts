import { Inject, Injectable, Logger } from '@nestjs/common';
import { DEFAULT_TOPIC_PARTITIONS } from '@lanner/frames';
import type { QueuePort } from '@lanner/queue';
import type { Repositories } from '@lanner/repository';
import { QUEUE, REPOSITORIES, ServiceInstanceIdentity } from '@lanner/runtime';
import { PollingTriggers } from './polling-triggers';
import { ScheduleLoop } from './schedule-loop';
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
    this.loop = new ScheduleLoop(repositories, queue, topics.executor, options, holder, undefined, this.polling);
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
