import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

// Lanner as users run it (`node bin/lanner.js ...`), for the runtime's
// integration specs: a separate process observed through its exit, its output
// and its endpoints.

export const workspaceRoot = join(__dirname, '..', '..', '..', '..');
export const lannerBin = join(workspaceRoot, 'bin', 'lanner.js');

/** A variable the integration specs need from the dev services (tools/jest/int-env.js sets them). */
export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: start the dev services (\`npm run services:up\`) or export ${name} before the integration specs`);
  return value;
}

/** A TCP port nothing listens on right now (on 127.0.0.1). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface LannerProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<Exit>;
  stdout(): string;
  stderr(): string;
  /** stdout and stderr together, in the order they arrived. */
  output(): string;
}

export interface StartLannerOptions {
  /** The working directory (the workspace root unless given). */
  readonly cwd?: string;
  /** Command-line flags after `server <role>`. */
  readonly flags?: string[];
}

/** Starts `lanner server <role>` logging at info; `env` adds to (and overrides) the spec's own environment. */
export function startLanner(role: string, env: NodeJS.ProcessEnv, options: StartLannerOptions = {}): LannerProcess {
  const child = spawn(process.execPath, [lannerBin, 'server', role, ...(options.flags ?? [])], {
    cwd: options.cwd ?? workspaceRoot,
    env: { ...process.env, LANNER_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    output += chunk.toString();
  });
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, exited, stdout: () => stdout, stderr: () => stderr, output: () => output };
}

/** Asks the process to stop (SIGTERM) and returns how it exited. */
export async function stopLanner(lanner: LannerProcess): Promise<Exit> {
  lanner.child.kill('SIGTERM');
  return lanner.exited;
}
