import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { RoleProcess } from './role-process';

/** What a restart did, for the spec's failure messages. */
export interface RestartReport {
  readonly name: string;
  readonly stoppedPid: number | undefined;
  readonly exit: { readonly code: number | null; readonly signal: string | null };
  readonly startedPid: number | undefined;
}

export interface RestartRequest {
  readonly signal: 'SIGKILL' | 'SIGTERM';
  /** How long the role stays down before it starts again (what a supervisor's restart delay would be). */
  readonly downtimeMs: number;
}

const MAX_DOWNTIME_MS = 60_000;

/**
 * Stops one role process with `signal` and starts it again with the same spec (env,
 * ports, log file, which it appends to), in place in `processes`, so the teardown
 * stops the new one. Resolves once the new one is ready.
 */
export async function restartRole(processes: RoleProcess[], name: string, request: RestartRequest, readyDeadlineMs: number): Promise<RestartReport> {
  const index = processes.findIndex((one) => one.spec.name === name);
  if (index < 0) throw new Error(`no role process named '${name}'`);
  const old = processes[index];
  const stoppedPid = old.pid;
  const exit = old.isRunning() ? await old.signal(request.signal) : await old.exited;
  await new Promise((resolve) => setTimeout(resolve, request.downtimeMs));
  const started = new RoleProcess(old.spec);
  processes[index] = started;
  await started.waitUntilReady(readyDeadlineMs);
  return { name, stoppedPid, exit, startedPid: started.pid };
}

/** Starts the role again if it is not running (a spec's cleanup after a failed restart). */
export async function ensureRoleRunning(processes: RoleProcess[], name: string, readyDeadlineMs: number): Promise<{ readonly restarted: boolean }> {
  const index = processes.findIndex((one) => one.spec.name === name);
  if (index < 0) throw new Error(`no role process named '${name}'`);
  if (processes[index].isRunning()) {
    await processes[index].waitUntilReady(readyDeadlineMs);
    return { restarted: false };
  }
  const started = new RoleProcess(processes[index].spec);
  processes[index] = started;
  await started.waitUntilReady(readyDeadlineMs);
  return { restarted: true };
}

function parseRestartRequest(body: unknown): RestartRequest {
  const candidate = (typeof body === 'object' && body !== null ? body : {}) as Partial<Record<keyof RestartRequest, unknown>>;
  const signal = candidate.signal ?? 'SIGKILL';
  const downtimeMs = candidate.downtimeMs ?? 0;
  if (signal !== 'SIGKILL' && signal !== 'SIGTERM') throw new Error(`signal must be SIGKILL or SIGTERM, not ${JSON.stringify(signal)}`);
  if (typeof downtimeMs !== 'number' || !Number.isFinite(downtimeMs) || downtimeMs < 0 || downtimeMs > MAX_DOWNTIME_MS) {
    throw new Error(`downtimeMs must be a number of ms in [0, ${MAX_DOWNTIME_MS}]`);
  }
  return { signal, downtimeMs };
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? {} : JSON.parse(text);
}

function answer(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/**
 * The harness's own control endpoint, in the process that owns the role processes (the
 * Jest main process): specs run in another module registry and cannot reach those
 * child processes, so they ask here to restart one. Loopback only, behind a bearer
 * token of its own kept in cluster.json.
 */
export class ControlServer {
  readonly token = randomBytes(24).toString('base64url');
  private readonly server: Server;
  /** One operation per role at a time: a cleanup must not race a restart in flight. */
  private readonly busy = new Map<string, Promise<unknown>>();

  private constructor(
    private readonly processes: RoleProcess[],
    private readonly readyDeadlineMs: number,
  ) {
    this.server = createServer((request, response) => void this.handle(request, response));
  }

  static async listen(processes: RoleProcess[], readyDeadlineMs: number): Promise<ControlServer> {
    const control = new ControlServer(processes, readyDeadlineMs);
    await new Promise<void>((resolve, reject) => {
      control.server.once('error', reject);
      control.server.listen(0, '127.0.0.1', () => resolve());
    });
    return control;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    // Keep-alive connections of the specs' fetch would otherwise hold the close for seconds.
    this.server.closeAllConnections();
    return closed;
  }

  private serialized<T>(name: string, work: () => Promise<T>): Promise<T> {
    const previous = this.busy.get(name) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    this.busy.set(name, next);
    return next;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.headers.authorization !== `Bearer ${this.token}`) return answer(response, 401, { error: 'unauthorized' });
    const match = /^\/processes\/([\w-]+)\/(restart|ensure-running)$/.exec(request.url ?? '');
    if (request.method !== 'POST' || !match) return answer(response, 404, { error: 'POST /processes/<name>/restart | ensure-running' });
    const [, name, action] = match;
    try {
      const body = await readJson(request);
      const result =
        action === 'restart'
          ? await this.serialized(name, () => restartRole(this.processes, name, parseRestartRequest(body), this.readyDeadlineMs))
          : await this.serialized(name, () => ensureRoleRunning(this.processes, name, this.readyDeadlineMs));
      answer(response, 200, result);
    } catch (error) {
      answer(response, 500, { error: error instanceof Error ? error.message : String(error) });
    }
  }
}
