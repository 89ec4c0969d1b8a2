import { join } from 'node:path';
import { readClusterState } from './cluster-state';
import { ClusterControl } from './cluster-control';
import { LannerClient } from './lanner-client';

export * from './api-types';
export { ClusterControl, type RestartReport, type StartedProcess } from './cluster-control';
export { Fleet, type WorkerOptions } from './fleet';
export { EXECUTOR_GROUP, groupMembers } from './kafka-group';
export { LannerClient, UnexpectedAnswer } from './lanner-client';

/** What a spec needs from the running cluster: the API as a user sees it, and a scratch folder. */
export interface Scenario {
  readonly lanner: LannerClient;
  /** Restarts role processes (a SIGKILL mid-flight); a spec that uses it restores them before it ends. */
  readonly cluster: ClusterControl;
  /** A path in the folder shared by the specs and the workers' shell tasks. */
  scratchFile(name: string): string;
  /** The run's LANNER_KAFKA_NAMESPACE (prefix of its topics and consumer groups). */
  readonly kafkaNamespace: string;
  /** `127.0.0.1:<port>` of the cluster's controller, for workers a spec starts. */
  readonly controllerEndpoint: string;
  /** Where the run keeps its files (a spec's certificates go under it). */
  readonly workDir: string;
}

export function scenario(): Scenario {
  const state = readClusterState();
  return {
    lanner: new LannerClient(state.apiUrl, state.adminToken),
    cluster: new ClusterControl(state.control),
    scratchFile: (name) => join(state.scratchDir, name),
    kafkaNamespace: state.kafkaNamespace,
    controllerEndpoint: `127.0.0.1:${state.controllerGrpcPort}`,
    workDir: state.workDir,
  };
}

/**
 * Polls `check` until it holds (for effects seen outside one API answer: a process that
 * must stop, a batch that must land); `refresh` fetches fresh facts between checks.
 */
/** Waits `ms` (a spec's pause between steps it drives). */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function eventually(
  check: () => boolean,
  what: string,
  timeoutMs = 20_000,
  refresh?: () => Promise<void>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (refresh) await refresh();
  }
  throw new Error(`${what}: still not true after ${timeoutMs} ms`);
}

/** Whether a process with this pid exists (signal 0 only checks). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
