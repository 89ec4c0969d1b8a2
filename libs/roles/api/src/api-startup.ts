import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DEFAULT_TOPIC_PARTITIONS } from '@lanner/frames';
import type { QueuePort } from '@lanner/queue';
import type { Repositories } from '@lanner/repository';
import { QUEUE, REPOSITORIES } from '@lanner/runtime';
import { API_TOPICS, type ApiTopics } from './api-topics';
import { ApiTokenAuth } from './auth/api-token-auth';
import { ExecutionUpdatesFeed } from './executions/execution-updates.feed';

const RETRY_MS = 2000;

/**
 * What the api role does once at start: ensure the topics, store the
 * bootstrap admin token, seed the reserved worker queues (`default`, `system`)
 * and the `default` group (WORKERS.md: they always exist), follow execution updates. A dependency that is down
 * must not stop the process (it reports not ready instead), so each step is
 * retried in the background until it succeeds.
 */
@Injectable()
export class ApiStartup implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ApiStartup.name);
  private stopped = false;
  private readonly retryTimers = new Set<NodeJS.Timeout>();

  constructor(
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(API_TOPICS) private readonly topics: ApiTopics,
    private readonly auth: ApiTokenAuth,
    private readonly updates: ExecutionUpdatesFeed,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.untilDone('ensure the topics and follow execution updates', async () => {
      await this.queue.createTopics(this.topics.ensured.map((topic) => ({ topic, partitions: DEFAULT_TOPIC_PARTITIONS })));
      await this.updates.start();
    });
    await this.untilDone('store the bootstrap admin token', () => this.auth.storeBootstrapToken());
    await this.untilDone('seed the reserved worker queues and group', () => this.repositories.workerGroups.seedReserved());
  }

  /** Runs `step` now; on failure logs it and retries in the background (resolving at once). */
  private async untilDone(what: string, step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (error) {
      this.logger.warn({ step: what, reason: error instanceof Error ? error.name : 'error' }, `could not ${what} yet; retrying`);
      const timer = setTimeout(() => {
        this.retryTimers.delete(timer);
        if (!this.stopped) void this.untilDone(what, step);
      }, RETRY_MS);
      timer.unref();
      this.retryTimers.add(timer);
    }
  }

  onModuleDestroy(): void {
    this.stopped = true;
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
  }
}
