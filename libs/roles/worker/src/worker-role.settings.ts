import { Endpoint, WorkerConfig } from '@lanner/runtime';

export interface WorkerRoleSettings {
  /** Controllers to connect to, tried in order; the worker rotates to the next one on a failure. */
  readonly controllers: readonly Endpoint[];
  /** How many jobs run at once. */
  readonly slots: number;
  /** The worker's name as controllers and the API show it. */
  readonly name: string;
  /** Internal storage: task working directories and the task output cache. */
  readonly dataDir: string;
  /** How long a shutdown waits for running jobs before it stops them. */
  readonly drainGraceMs: number;
}

export const WORKER_SETTINGS = Symbol('lanner.worker-settings');

/**
 * Not yet a config variable: long enough for short tasks to finish on a rolling
 * restart, short enough for a Kubernetes default terminationGracePeriod (30 s).
 */
export const DEFAULT_DRAIN_GRACE_MS = 25_000;

export function workerRoleSettings(config: WorkerConfig): WorkerRoleSettings {
  return {
    controllers: config.controllers,
    slots: config.slots,
    name: config.name,
    dataDir: config.dataDir,
    drainGraceMs: DEFAULT_DRAIN_GRACE_MS,
  };
}
