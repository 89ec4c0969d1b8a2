import { createInternalStorage, liveControllers } from '@lanner/storage';
import type { Logger } from 'pino';
import { controllerChannel, grpcAuthCalls } from './lib/controller-channel';
import { WorkerAgent } from './lib/worker-agent';
import { WorkerCredentials } from './lib/worker-credentials';
import type { WorkerRoleSettings } from './worker-role.settings';

/**
 * sysexits' EX_NOPERM: the worker stopped because no controller accepts its
 * credentials any more (refresh refused, registration token refused); a
 * restart without a new registration token would fail the same way.
 */
export const EXIT_CREDENTIALS_REFUSED = 77;

/**
 * The worker agent of these settings, wired to real gRPC and internal storage.
 * One home for both ways the role runs: on the process's event loop
 * (WorkerAgentService) and on a thread of its own (standalone's local worker).
 */
export function createWorkerAgent(settings: WorkerRoleSettings, logger: Logger, onFatal: () => void): WorkerAgent {
  const log = logger.child({ component: 'worker-agent' });
  const channel = controllerChannel(settings.tls);
  const auth = settings.auth;
  const storage = createInternalStorage(settings.storage);
  return new WorkerAgent({
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
    onFatal,
    slots: settings.slots,
    startedReportDelayMs: settings.startedReportDelayMs,
    name: settings.name,
    dataDir: settings.dataDir,
    storage,
    outputInlineMaxBytes: settings.outputInlineMaxBytes,
    logger: log,
  });
}
