import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

// Lanner as users run it (`node bin/lanner.js ...`), for the runtime's
// integration specs: a separate process observed through its exit, its output
// and its endpoints.

export const workspaceRoot = join(__dirname, '..', '..', '..', '..');
export const lannerBin = join(workspaceRoot, 'bin', 'lanner.js');

// The runtime specs import everything from here; the common helpers live in @lanner/testing.
export { freePort, requiredEnv } from '@lanner/testing';

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
