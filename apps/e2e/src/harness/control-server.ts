import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { freePort } from '@lanner/testing';
import type { ClusterState } from './cluster-state';
import { RoleProcess, RoleProcessSpec } from './role-process';

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
const MAX_STOP_GRACE_MS = 120_000;
const DEFAULT_STOP_GRACE_MS = 10_000;

/**
 * An extra role process a spec starts (a worker with a registration token, a
 * controller with TLS): same database, Kafka namespace and JWT signing key as the
 * run, because its env starts as a copy of the cluster's own process of that role.
 */
export interface StartRequest {
  readonly role: 'worker' | 'controller' | 'executor' | 'scheduler';
  /** Variables added to (or replacing) the template's. */
  readonly env?: Readonly<Record<string, string>>;
  /** Variables removed from the template's env. */
  readonly unset?: readonly string[];
  /** Resolve only once `/health/ready` answers 200 (default); false for a process expected never to be ready. */
  readonly waitUntilReady?: boolean;
}

export interface StartedProcess {
  readonly name: string;
  readonly pid: number | undefined;
  readonly httpPort: number;
  /** The gRPC port of a started controller. */
  readonly grpcPort?: number;
  readonly logFile: string;
}

export interface StopRequest {
  /** SIGTERM first (default); SIGKILL after `graceMs`. */
  readonly signal?: 'SIGTERM' | 'SIGKILL';
  readonly graceMs?: number;
}

export interface StopReport {
  readonly name: string;
  readonly exit: { readonly code: number | null; readonly signal: string | null };
}

/** The cluster's own process of each role whose env a started process copies. */
const TEMPLATES: Record<StartRequest['role'], string> = {
  worker: 'e2e-worker-a',
  controller: 'controller',
  executor: 'executor',
  scheduler: 'scheduler',
};
const VARIABLE_NAME = /^[A-Z_][A-Z0-9_]*$/;

/**
 * Stops one role process with `signal` and starts it again with the same spec (env,
 * ports, log file, which it appends to), in place in `processes`, so the teardown
 * stops the new one. Resolves once the new one is ready.
 */
export async function restartRole(
  processes: RoleProcess[],
  name: string,
  request: RestartRequest,
  readyDeadlineMs: number,
): Promise<RestartReport> {
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
export async function ensureRoleRunning(
  processes: RoleProcess[],
  name: string,
  readyDeadlineMs: number,
): Promise<{ readonly restarted: boolean }> {
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

function parseStartRequest(body: unknown): StartRequest {
  const candidate = (typeof body === 'object' && body !== null ? body : {}) as Partial<Record<keyof StartRequest, unknown>>;
  const { role, env = {}, unset = [], waitUntilReady = true } = candidate;
  if (role !== 'worker' && role !== 'controller' && role !== 'executor' && role !== 'scheduler')
    throw new Error(`role must be worker, controller, executor or scheduler, not ${JSON.stringify(role)}`);
  if (typeof env !== 'object' || env === null || Array.isArray(env))
    throw new Error('env must be an object of variable names to string values');
  for (const [name, value] of Object.entries(env)) {
    if (!VARIABLE_NAME.test(name) || typeof value !== 'string')
      throw new Error(`env.${name} must be a variable name with a string value`);
  }
  if (!Array.isArray(unset) || unset.some((name) => typeof name !== 'string' || !VARIABLE_NAME.test(name)))
    throw new Error('unset must be a list of variable names');
  if (typeof waitUntilReady !== 'boolean') throw new Error('waitUntilReady must be a boolean');
  return { role, env: env as Record<string, string>, unset: unset as string[], waitUntilReady };
}

function parseStopRequest(body: unknown): Required<StopRequest> {
  const candidate = (typeof body === 'object' && body !== null ? body : {}) as Partial<Record<keyof StopRequest, unknown>>;
  const signal = candidate.signal ?? 'SIGTERM';
  const graceMs = candidate.graceMs ?? DEFAULT_STOP_GRACE_MS;
  if (signal !== 'SIGKILL' && signal !== 'SIGTERM')
    throw new Error(`signal must be SIGKILL or SIGTERM, not ${JSON.stringify(signal)}`);
  if (typeof graceMs !== 'number' || !Number.isFinite(graceMs) || graceMs < 0 || graceMs > MAX_STOP_GRACE_MS) {
    throw new Error(`graceMs must be a number of ms in [0, ${MAX_STOP_GRACE_MS}]`);
  }
  return { signal, graceMs };
}

function parseRestartRequest(body: unknown): RestartRequest {
  const candidate = (typeof body === 'object' && body !== null ? body : {}) as Partial<Record<keyof RestartRequest, unknown>>;
  const signal = candidate.signal ?? 'SIGKILL';
  const downtimeMs = candidate.downtimeMs ?? 0;
  if (signal !== 'SIGKILL' && signal !== 'SIGTERM')
    throw new Error(`signal must be SIGKILL or SIGTERM, not ${JSON.stringify(signal)}`);
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
  /** The run's state and its file, once the cluster is up: started processes add their log files to it. */
  private cluster: { state: ClusterState; file: string } | undefined;
  /** Processes started by specs: only these may be stopped through here (the cluster's own are restarted, never removed). */
  private readonly started = new Set<string>();

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

  /** Lets specs start extra processes; their log files are added to the state file (the failure reporter reads it). */
  attach(state: ClusterState, file: string): void {
    this.cluster = { state, file };
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
    const match = /^\/processes\/([\w-]+)\/(restart|ensure-running|start|stop)$/.exec(request.url ?? '');
    if (request.method !== 'POST' || !match)
      return answer(response, 404, { error: 'POST /processes/<name>/restart | ensure-running | start | stop' });
    const [, name, action] = match;
    try {
      const body = await readJson(request);
      let result: unknown;
      if (action === 'restart') {
        result = await this.serialized(name, () =>
          restartRole(this.processes, name, parseRestartRequest(body), this.readyDeadlineMs),
        );
      } else if (action === 'ensure-running') {
        result = await this.serialized(name, () => ensureRoleRunning(this.processes, name, this.readyDeadlineMs));
      } else if (action === 'start') {
        result = await this.serialized(name, () => this.start(name, parseStartRequest(body)));
      } else {
        result = await this.serialized(name, () => this.stop(name, parseStopRequest(body)));
      }
      answer(response, 200, result);
    } catch (error) {
      answer(response, 500, { error: error instanceof Error ? error.message : String(error) });
    }
  }

  private async start(name: string, request: StartRequest): Promise<StartedProcess> {
    if (!this.cluster) throw new Error('the cluster is not up yet');
    if (this.processes.some((one) => one.spec.name === name && (one.isRunning() || !this.started.has(name)))) {
      throw new Error(`a process named '${name}' already exists in the cluster`);
    }
    const template = this.processes.find((one) => one.spec.name === TEMPLATES[request.role]);
    if (!template) throw new Error(`no ${request.role} process to copy the env of`);
    const { state, file } = this.cluster;
    const httpPort = await freePort();
    const env: NodeJS.ProcessEnv = { ...template.spec.env, LANNER_HTTP_PORT: String(httpPort) };
    let grpcPort: number | undefined;
    if (request.role === 'controller') {
      grpcPort = await freePort();
      env['LANNER_GRPC_PORT'] = String(grpcPort);
    } else if (request.role === 'worker') {
      env['LANNER_WORKER_NAME'] = name;
      env['LANNER_WORKER_DATA_DIR'] = join(state.workDir, name);
    }
    Object.assign(env, request.env ?? {});
    for (const variable of request.unset ?? []) delete env[variable];
    const logFile = join(state.workDir, 'logs', `${name}.log`);
    const spec: RoleProcessSpec = { name, role: request.role, httpPort, env, logFile };
    const started = new RoleProcess(spec);
    const index = this.processes.findIndex((one) => one.spec.name === name);
    if (index >= 0) this.processes[index] = started;
    else this.processes.push(started);
    // Read again here: specs start processes concurrently, and each adds its own log file.
    const current = this.cluster.state;
    this.cluster.state = { ...current, logFiles: { ...current.logFiles, [name]: logFile } };
    writeFileSync(file, JSON.stringify(this.cluster.state, null, 2));
    this.started.add(name);
    if (request.waitUntilReady !== false) await started.waitUntilReady(this.readyDeadlineMs);
    return { name, pid: started.pid, httpPort, ...(grpcPort !== undefined ? { grpcPort } : {}), logFile };
  }

  private async stop(name: string, request: Required<StopRequest>): Promise<StopReport> {
    const one = this.processes.find((candidate) => candidate.spec.name === name);
    if (!one || !this.started.has(name)) throw new Error(`no role process named '${name}' was started by a spec`);
    const exit = request.signal === 'SIGKILL' ? await one.signal('SIGKILL') : await one.stop(request.graceMs);
    return { name, exit };
  }
}
