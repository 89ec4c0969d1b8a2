import type { ClusterState } from './cluster-state';
import type { RestartReport, RestartRequest, StartedProcess, StartRequest, StopReport, StopRequest } from './control-server';

export type { RestartReport, StartedProcess, StartRequest, StopReport, StopRequest } from './control-server';

// A restart waits for the new process's /health/ready: on 2 shared cores a role's
// TypeScript compiles for a while (the start deadline is 120 s).
const CONTROL_TIMEOUT_MS = 180_000;

/** A spec's handle on the role processes (names as in `ClusterState.logFiles`: `executor`, `e2e-worker-a`...). */
export class ClusterControl {
  constructor(private readonly control: ClusterState['control']) {}

  /**
   * Stops the role with `signal` (SIGKILL by default: no shutdown hook runs), keeps it
   * down `downtimeMs`, starts it again with the same env and ports, and resolves when it
   * is ready.
   */
  restart(name: string, request: Partial<RestartRequest> = {}): Promise<RestartReport> {
    return this.call<RestartReport>(name, 'restart', request);
  }

  /** Starts the role again if it is not running; a spec's cleanup, so the next specs find the cluster whole. */
  ensureRunning(name: string): Promise<{ readonly restarted: boolean }> {
    return this.call(name, 'ensure-running', {});
  }

  /**
   * Starts an extra worker, controller, executor or scheduler named `name`, its env copied from the cluster's
   * own (same database, Kafka namespace, signing key) plus `request.env`; a worker gets
   * `LANNER_WORKER_NAME=name` and a data dir of its own, a controller a gRPC port of its own.
   * Resolves when it is ready, unless `waitUntilReady: false`.
   */
  start(name: string, request: StartRequest): Promise<StartedProcess> {
    return this.call<StartedProcess>(name, 'start', request);
  }

  /** Stops a process a spec started: SIGTERM, then SIGKILL after `graceMs` (10 s by default). */
  stop(name: string, request: StopRequest = {}): Promise<StopReport> {
    return this.call<StopReport>(name, 'stop', request);
  }

  private async call<T>(name: string, action: string, body: unknown): Promise<T> {
    const response = await fetch(`${this.control.url}/processes/${encodeURIComponent(name)}/${action}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.control.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(CONTROL_TIMEOUT_MS),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${action} of ${name} failed: HTTP ${response.status} ${text}`);
    return JSON.parse(text) as T;
  }
}
