import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';
import { DependencyDownError, PROCESS_LOGGER, ReadinessChecks } from '@lanner/runtime';
import type { WorkerAgent } from './lib/worker-agent';
import { createWorkerAgent, EXIT_CREDENTIALS_REFUSED } from './worker-agent.factory';
import { WORKER_SETTINGS, WorkerRoleSettings } from './worker-role.settings';

/**
 * Runs the worker agent for the process's lifetime: connects once the
 * application is up, drains when it closes (SIGTERM), and reports readiness as
 * "a controller accepted the stream" (Welcome received), which is what an
 * operator needs to know: whether this worker can get work.
 */
@Injectable()
export class WorkerAgentService implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly agent: WorkerAgent;

  constructor(
    private readonly readiness: ReadinessChecks,
    @Inject(WORKER_SETTINGS) private readonly settings: WorkerRoleSettings,
    @Inject(PROCESS_LOGGER) logger: Logger,
  ) {
    this.agent = createWorkerAgent(settings, logger, () => process.exit(EXIT_CREDENTIALS_REFUSED));
  }

  onModuleInit(): void {
    this.readiness.register('controllers', async () => {
      if (!this.agent.connected) throw new DependencyDownError(`no stream to a controller: ${this.agent.problem}`);
    });
  }

  onApplicationBootstrap(): void {
    this.agent.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.drain('the worker is shutting down', this.settings.drainGraceMs);
  }
}
