/**
 * Test support: runs the worker role as users run it (`node bin/lanner.js
 * server worker`, its own process) and reads what an operator would see: its
 * output, its exit code and its readiness endpoint.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@lanner/testing';

export { eventually, freePort } from '@lanner/testing';

const workspaceRoot = join(__dirname, '..', '..', '..', '..', '..');
const lannerBin = join(workspaceRoot, 'bin', 'lanner.js');

export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly port: number;
  readonly dataDir: string;
  readonly exited: Promise<number | null>;
  output(): string;
}

const processes: WorkerProcess[] = [];
const temporaryDirs: string[] = [];

/** A directory removed by `stopAllWorkers`. */
export function temporaryDir(prefix = 'lanner-worker-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temporaryDirs.push(dir);
  return dir;
}

export interface StartWorkerOptions {
  readonly controllers: string;
  readonly name: string;
  readonly slots?: number;
  /** Reused across restarts to keep the stored credentials; a new one by default. */
  readonly dataDir?: string;
  readonly env?: Record<string, string>;
}

export async function startWorker(options: StartWorkerOptions): Promise<WorkerProcess> {
  const port = await freePort();
  const dataDir = options.dataDir ?? temporaryDir();
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('LANNER_WORKER_')));
  const child = spawn(process.execPath, [lannerBin, 'server', 'worker'], {
    cwd: workspaceRoot,
    env: {
      ...inherited,
      LANNER_LOG_LEVEL: 'info',
      LANNER_HTTP_PORT: String(port),
      LANNER_WORKER_CONTROLLERS: options.controllers,
      LANNER_WORKER_SLOTS: String(options.slots ?? 2),
      LANNER_WORKER_NAME: options.name,
      LANNER_WORKER_DATA_DIR: dataDir,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const worker = { child, port, dataDir, exited, output: () => output };
  processes.push(worker);
  return worker;
}

/** Stops a worker the way an orchestrator does (SIGTERM) and returns its exit code. */
export async function stopWorker(worker: WorkerProcess): Promise<number | null> {
  if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGTERM');
  return worker.exited;
}

/** For afterAll: kills what is left and removes the temporary directories. */
export async function stopAllWorkers(): Promise<void> {
  for (const worker of processes)
    if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
  await Promise.all(processes.map((worker) => worker.exited));
  processes.length = 0;
  for (const dir of temporaryDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function readiness(port: number): Promise<number> {
  return new Promise((resolve) => {
    const request = get({ host: '127.0.0.1', port, path: '/health/ready', timeout: 5000 }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', () => resolve(0));
    request.on('timeout', () => request.destroy());
  });
}

/** The JSON log lines a worker wrote, parsed (other output is skipped). */
export function logLines(worker: WorkerProcess): Array<Record<string, unknown>> {
  return worker
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}
