import type { LogLevel } from '@lanner/runtime';
import type { WorkerRoleSettings } from '../worker-role.settings';

/** What the worker thread starts with (structured-cloned into it). */
export interface WorkerThreadData {
  readonly settings: WorkerRoleSettings;
  /** The process logger's `role` and level, so the thread's lines read like the process's. */
  readonly logRole: string;
  readonly logLevel: LogLevel;
}

/** From the process to the thread. */
export type ToWorkerThread =
  | { readonly type: 'status'; readonly id: number }
  | { readonly type: 'drain'; readonly reason: string; readonly graceMs: number };

/** From the thread to the process. */
export type FromWorkerThread =
  | { readonly type: 'status'; readonly id: number; readonly connected: boolean; readonly problem: string }
  | { readonly type: 'drained' };
