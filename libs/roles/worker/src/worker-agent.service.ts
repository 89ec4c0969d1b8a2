import { createInternalStorage, liveControllers } from '@lanner/storage';
import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';
import { DependencyDownError, PROCESS_LOGGER, ReadinessChecks } from '@lanner/runtime';
import { controllerChannel, grpcAuthCalls } from './lib/controller-channel';
import { WorkerAgent } from './lib/worker-agent';
import { WorkerCredentials } from './lib/worker-credentials';
import { WORKER_SETTINGS, WorkerRoleSettings } from './worker-role.settings';

/**
 * sysexits' EX_NOPERM: the worker stopped because no controller accepts its
 * credentials any more (refresh refused, registration token refused); a
 * restart without a new registration token would fail the same way.
 */
export const EXIT_CREDENTIALS_REFUSED = 77;

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
    const log = logger.child({ component: 'worker-agent' });
    const channel = controllerChannel(settings.tls);
    const auth = settings.auth;
    const storage = createInternalStorage(settings.storage);
    this.agent = new WorkerAgent({
      controllers: settings.controllers,
      discovery: settings.discovery && {
        mode: settings.discovery.mode,
        refreshMs: settings.discovery.refreshS * 1000,
        registry: () => liveControllers(storage, Date.now()),
      },
      channel,
      credentials:
        auth &&
        new WorkerCredentials({
          path: auth.credentialsPath,
          registrationToken: auth.registrationToken,
          refreshBufferMs: auth.refreshBufferS * 1000,
          workerName: settings.name,
          calls: grpcAuthCalls(channel),
          logger: log,
        }),
      // The fatal line is written (synchronously) by the agent; nothing is left to close but the process.
      onFatal: () => process.exit(EXIT_CREDENTIALS_REFUSED),
      slots: settings.slots,
      startedReportDelayMs: settings.startedReportDelayMs,
      name: settings.name,
      dataDir: settings.dataDir,
      storage,
      outputInlineMaxBytes: settings.outputInlineMaxBytes,
      logger: log,
    });
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
