import { Endpoint, WorkerConfig } from '@lanner/runtime';

export interface WorkerRoleSettings {
  /**
   * Controllers to connect to. Empty in standalone, where the local worker will
   * reach the in-process controller over loopback gRPC (a later issue) and so
   * has no remote dependency to report.
   */
  readonly controllers: readonly Endpoint[];
}

export const WORKER_SETTINGS = Symbol('lanner.worker-settings');

export function workerRoleSettings(config: WorkerConfig): WorkerRoleSettings {
  return { controllers: config.controllers };
}
