import { Endpoint, WorkerConfig } from '@lanner/runtime';
import type { StorageConfig } from '@lanner/storage';
import type { WorkerTlsMaterial } from './lib/controller-channel';
import type { DiscoveryMode } from './lib/controller-directory';
import { readTlsMaterial } from './lib/tls-material';

export interface WorkerRoleSettings {
  /** Controllers to connect to, tried in order; the worker moves to the next one on a failure or a Reconnect. */
  readonly controllers: readonly Endpoint[];
  /** How many jobs run at once. */
  readonly slots: number;
  /** How long a task runs before it is reported as started (LANNER_WORKER_STARTED_REPORT_DELAY_MS); absent: 200 ms. */
  readonly startedReportDelayMs?: number;
  /** The worker's name as controllers and the API show it. */
  readonly name: string;
  /** Internal storage: task working directories and the task output cache. */
  readonly dataDir: string;
  /** Where the files flows pass between tasks live (script outputFiles, inputFiles from a URI). */
  readonly storage: StorageConfig;
  /** Return/OutputValues values larger than this go to internal storage (LANNER_STORAGE_OUTPUT_INLINE_MAX_BYTES); absent: 1 MiB. */
  readonly outputInlineMaxBytes?: number;
  /** How long a shutdown waits for running jobs before it stops them. */
  readonly drainGraceMs: number;
  /** Registration and rotating credentials; absent: the worker is anonymous (standalone's local worker). */
  readonly auth?: {
    readonly registrationToken?: string;
    readonly credentialsPath: string;
    readonly refreshBufferS: number;
  };
  /** How `controllers` is resolved; absent: STATIC. */
  readonly discovery?: { readonly mode: DiscoveryMode; readonly refreshS: number };
  /** TLS to the controllers, already read from its files; absent: plaintext. */
  readonly tls?: WorkerTlsMaterial;
}

export const WORKER_SETTINGS = Symbol('lanner.worker-settings');

/**
 * Not yet a config variable: long enough for short tasks to finish on a rolling
 * restart, short enough for a Kubernetes default terminationGracePeriod (30 s).
 */
export const DEFAULT_DRAIN_GRACE_MS = 25_000;

/** The worker process's settings. Reads the TLS files: throws ConfigError naming the variable when one is unusable. */
export function workerRoleSettings(config: WorkerConfig): WorkerRoleSettings {
  return {
    controllers: config.controllers,
    slots: config.slots,
    startedReportDelayMs: config.startedReportDelayMs,
    name: config.name,
    dataDir: config.dataDir,
    storage: config.storage,
    outputInlineMaxBytes: config.outputInlineMaxBytes,
    drainGraceMs: DEFAULT_DRAIN_GRACE_MS,
    auth: config.auth,
    discovery: config.discovery,
    tls: readTlsMaterial(config.tls),
  };
}
