import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { eventually, freePort } from './spec-helpers';

// The controller as users run it: `node bin/lanner.js server controller`, as
// its own process, configured through its environment only.

const workspaceRoot = join(__dirname, '..', '..', '..', '..', '..');
const lannerBin = join(workspaceRoot, 'bin', 'lanner.js');

export interface SpawnedController {
  readonly child: ChildProcess;
  /** The exit code once the process has ended. */
  readonly exited: Promise<number | null>;
  /** Everything the process wrote so far (stdout and stderr, JSON log lines). */
  output(): string;
}

export interface ControllerProcess extends SpawnedController {
  readonly grpcPort: number;
  readonly httpPort: number;
}

export interface StartControllerOptions {
  /** How long the controller may take to listen and follow broadcasts. */
  readonly startupWaitMs: number;
  /** How often the spec looks at its log lines meanwhile. */
  readonly pollMs: number;
}

/**
 * Starts a controller without waiting for it: logs at info, gRPC on a port of
 * the system's choice on 127.0.0.1; `env` adds to (and overrides) that and the
 * spec's own environment.
 */
export function spawnController(env: NodeJS.ProcessEnv): SpawnedController {
  const child = spawn(process.execPath, [lannerBin, 'server', 'controller'], {
    cwd: workspaceRoot,
    env: { ...process.env, LANNER_LOG_LEVEL: 'info', LANNER_GRPC_HOST: '127.0.0.1', LANNER_GRPC_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

/**
 * Starts a controller (HTTP on a free port unless `env` names one) and returns
 * once it listens for workers and follows broadcasts (a broadcast published
 * earlier would be missed); kills it and fails, with its output, if it exits or
 * is not ready in time.
 */
export async function startController(env: NodeJS.ProcessEnv, options: StartControllerOptions): Promise<ControllerProcess> {
  const httpPort = env['LANNER_HTTP_PORT'] ? Number(env['LANNER_HTTP_PORT']) : await freePort();
  const { child, exited, output } = spawnController({ ...env, LANNER_HTTP_PORT: String(httpPort) });
  const linesWith = (text: string) =>
    output()
      .split('\n')
      .filter((line) => line.includes(text))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  try {
    const grpcPort = await eventually(
      'the controller to listen and follow broadcasts',
      () => {
        if (child.exitCode !== null) throw new Error(`controller exited early:\n${output()}`);
        const listening = linesWith('"controller gRPC listening"')[0];
        return listening && linesWith('"following broadcasts"').length > 0 ? Number(listening['port']) : undefined;
      },
      { waitMs: options.startupWaitMs, pollMs: options.pollMs },
    );
    return { child, grpcPort, httpPort, exited, output };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

/**
 * Asks a controller to stop (SIGTERM) and returns its exit code; SIGKILL only
 * if it has not stopped by itself after `killAfterMs` (the timer does not
 * outlive the exit).
 */
export async function stopController(controller: SpawnedController, killAfterMs: number): Promise<number | null> {
  controller.child.kill('SIGTERM');
  const stuck = setTimeout(() => controller.child.kill('SIGKILL'), killAfterMs);
  const code = await controller.exited;
  clearTimeout(stuck);
  return code;
}
