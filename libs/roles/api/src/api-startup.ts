import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DEFAULT_TOPIC_PARTITIONS } from '@lanner/frames';
import type { QueuePort } from '@lanner/queue';
import type { Repositories } from '@lanner/repository';
import { QUEUE, REPOSITORIES } from '@lanner/runtime';
import { API_TOPICS, type ApiTopics } from './api-topics';
import { ApiTokenAuth } from './auth/api-token-auth';
import { ExecutionUpdatesFeed } from './executions/execution-updates.feed';
import { UserSessions } from './users/user-sessions';
import { DeclarativeSetup, InvalidSetup } from './setup/declarative-setup';

const RETRY_MS = 2000;
/** How long the start waits for the database and the queue before giving up on applying the declarative setup. */
const SETUP_PATIENCE_MS = 120_000;

/**
 * What the api role does once at start: ensure the topics, store the
 * bootstrap admin token, seed the reserved worker queues (`default`, `system`)
 * and the `default` group (WORKERS.md: they always exist), follow execution updates. A dependency that is down
 * must not stop the process (it reports not ready instead), so each step is
 * retried in the background until it succeeds.
 *
 * The declarative setup (LANNER_SETUP_FILE) is the exception: it is applied
 * before the process serves, because an invalid one must stop the start. It
 * waits for the database and the queue (up to SETUP_PATIENCE_MS), then throws.
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
    private readonly setup: DeclarativeSetup,
    private readonly users: UserSessions,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.untilDone('ensure the topics and follow execution updates', async () => {
      await this.queue.createTopics(this.topics.ensured.map((topic) => ({ topic, partitions: DEFAULT_TOPIC_PARTITIONS })));
      await this.updates.start();
    });
    await this.untilDone('store the bootstrap admin token', () => this.auth.storeBootstrapToken());
    await this.untilDone('create the first admin user', () => this.users.ensureFirstAdmin());
    if (this.setup.enabled) await this.applySetup();
    else await this.untilDone('seed the reserved worker queues and group', () => this.repositories.workerGroups.seedReserved());
  }

  /** The reserved topology first (setup groups may subscribe to `default`), then the setup; retried only while a dependency is down. */
  private async applySetup(): Promise<void> {
    const deadline = Date.now() + SETUP_PATIENCE_MS;
    for (;;) {
      try {
        await this.repositories.workerGroups.seedReserved();
        await this.setup.apply();
        return;
      } catch (error) {
        if (error instanceof InvalidSetup || this.stopped) throw error;
        const reason = error instanceof Error ? error.name : 'error';
        if (Date.now() > deadline) {
          throw new SetupNotApplied(
            `the declarative setup could not be applied within ${SETUP_PATIENCE_MS / 1000} s (last failure: ${reason})`,
          );
        }
        this.logger.warn({ step: 'apply the declarative setup', reason }, 'could not apply the declarative setup yet; retrying');
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
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

/** The setup could not be applied because a dependency stayed down; the start fails rather than serving without it. */
export class SetupNotApplied extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SetupNotApplied';
  }
}
