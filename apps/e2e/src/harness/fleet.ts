import { readFileSync } from 'node:fs';
import type { ConnectedWorker } from './api-types';
import type { ClusterControl, StartedProcess } from './cluster-control';
import type { LannerClient } from './lanner-client';

/** What a spec's extra worker needs beyond the cluster's worker env. */
export interface WorkerOptions {
  /** A registration token of the group to join (LANNER_WORKER_REGISTRATION_TOKEN); none: anonymous. */
  readonly registrationToken?: string;
  readonly slots: number;
  /** `host:port` list (LANNER_WORKER_CONTROLLERS); default: the cluster's controller. */
  readonly controllers?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Default true; false for a worker that is expected never to be ready. */
  readonly waitUntilReady?: boolean;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The extra role processes of one spec (workers with registration tokens, a TLS
 * controller), started through the harness's control endpoint with the run's
 * database and Kafka namespace, and stopped by `stopAll()` in the spec's afterAll.
 */
export class Fleet {
  private readonly started = new Map<string, StartedProcess>();

  constructor(
    private readonly cluster: ClusterControl,
    private readonly lanner: LannerClient,
  ) {}

  async startWorker(name: string, options: WorkerOptions): Promise<StartedProcess> {
    const env: Record<string, string> = { LANNER_WORKER_SLOTS: String(options.slots), ...(options.env ?? {}) };
    if (options.registrationToken !== undefined) env['LANNER_WORKER_REGISTRATION_TOKEN'] = options.registrationToken;
    if (options.controllers !== undefined) env['LANNER_WORKER_CONTROLLERS'] = options.controllers;
    return this.start(name, { role: 'worker', env, waitUntilReady: options.waitUntilReady ?? true });
  }

  async startController(name: string, env: Readonly<Record<string, string>>): Promise<StartedProcess> {
    return this.start(name, { role: 'controller', env });
  }

  /** A second executor of the run (same database and Kafka namespace): it shares the executor group's partitions. */
  async startExecutor(name: string, env: Readonly<Record<string, string>> = {}): Promise<StartedProcess> {
    return this.start(name, { role: 'executor', env });
  }

  /** A second scheduler of the run: it claims due schedules from the same trigger rows as the cluster's own. */
  async startScheduler(name: string, env: Readonly<Record<string, string>> = {}): Promise<StartedProcess> {
    return this.start(name, { role: 'scheduler', env });
  }

  private async start(name: string, request: Parameters<ClusterControl['start']>[1]): Promise<StartedProcess> {
    // Registered before it is ready, so stopAll() stops it even when it never gets there.
    const placeholder = { name, pid: undefined, httpPort: 0, logFile: '' };
    this.started.set(name, placeholder);
    const process = await this.cluster.start(name, request);
    this.started.set(name, process);
    return process;
  }

  /** SIGTERM (the worker drains), SIGKILL after `graceMs`; resolves with how it exited. */
  stop(name: string, graceMs = 10_000): ReturnType<ClusterControl['stop']> {
    return this.cluster.stop(name, { signal: 'SIGTERM', graceMs });
  }

  /** Stops every process this spec started (workers first, then controllers). */
  async stopAll(): Promise<void> {
    const names = [...this.started.keys()];
    const stopQuietly = (name: string) => this.cluster.stop(name, { graceMs: 10_000 }).catch(() => undefined);
    const controllers = names.filter((name) => this.started.get(name)?.grpcPort !== undefined);
    await Promise.all(names.filter((name) => !controllers.includes(name)).map(stopQuietly));
    await Promise.all(controllers.map(stopQuietly));
    this.started.clear();
  }

  /**
   * Waits until the process exits by itself (a worker whose credentials are refused
   * stops), then resolves with its exit; fails if it is still running at the deadline.
   */
  async waitForExit(process: StartedProcess, timeoutMs = 30_000): ReturnType<ClusterControl['stop']> {
    const deadline = Date.now() + timeoutMs;
    while (process.pid !== undefined && isAlive(process.pid)) {
      if (Date.now() > deadline) {
        const tail = this.logOf(process).split('\n').slice(-10).join('\n');
        throw new Error(`${process.name} (pid ${process.pid}) still runs after ${timeoutMs} ms; its last lines:\n${tail}`);
      }
      await delay(200);
    }
    // Already gone: the stop only collects how it exited.
    return this.cluster.stop(process.name, { graceMs: 0 });
  }

  /** Everything the process has logged so far. */
  logOf(process: StartedProcess): string {
    try {
      return readFileSync(process.logFile, 'utf8');
    } catch {
      return '';
    }
  }

  /** Whether `/health/ready` answers 200 now. */
  async isReady(process: StartedProcess): Promise<boolean> {
    try {
      const response = await fetch(`http://127.0.0.1:${process.httpPort}/health/ready`, { signal: AbortSignal.timeout(5000) });
      await response.text();
      return response.status === 200;
    } catch {
      return false;
    }
  }

  /** Polls the log until a line matches; fails with the log's tail. */
  async waitForLog(process: StartedProcess, pattern: RegExp, what: string, timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const line = this.logOf(process)
        .split('\n')
        .find((one) => pattern.test(one));
      if (line !== undefined) return line;
      await delay(250);
    }
    const tail = this.logOf(process).split('\n').slice(-25).join('\n');
    throw new Error(`${process.name} never logged ${what} (${pattern}) within ${timeoutMs} ms; its last lines:\n${tail}`);
  }

  /** The id the controller gave the worker named `name`, once the group lists it as connected. */
  async workerIdOf(groupId: string, name: string, timeoutMs = 30_000): Promise<string> {
    const worker = await this.connectedWorker(groupId, name, timeoutMs);
    return worker.id;
  }

  async connectedWorker(groupId: string, name: string, timeoutMs = 30_000): Promise<ConnectedWorker> {
    const deadline = Date.now() + timeoutMs;
    let seen: ConnectedWorker[] = [];
    let lastError = '';
    while (Date.now() < deadline) {
      try {
        seen = await this.lanner.groupWorkers(groupId);
        const found = seen.find((worker) => worker.name === name);
        if (found) return found;
      } catch (error) {
        lastError = error instanceof Error ? error.message : String(error);
      }
      await delay(250);
    }
    throw new Error(
      `worker '${name}' is not listed in group '${groupId}' within ${timeoutMs} ms; listed: ${JSON.stringify(seen)} ${lastError}`,
    );
  }
}
