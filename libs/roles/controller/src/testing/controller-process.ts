import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { QueuePort } from '@lanner/queue';
import type { Repositories } from '@lanner/repository';
import type { SpecDatabase } from './spec-database';
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

/** What a controller spec starts in its beforeAll (any of it may be missing when the set-up failed part way). */
export interface ControllerSpecResources {
  readonly controller?: SpawnedController;
  readonly queue?: QueuePort;
  /** The spec's topics, deleted at the end (already missing ones are fine). */
  readonly topics: readonly string[];
  readonly repositories?: Repositories;
  readonly database?: SpecDatabase;
}

/**
 * The end of a controller spec, in the order that leaves nothing behind: the
 * controller stopped (SIGTERM, killed after `killAfterMs`), the spec's topics
 * deleted, its adapters closed, its database dropped. Returns the controller's
 * exit code (0 when none was started), for the spec to check.
 */
export async function tearDownControllerSpec(resources: ControllerSpecResources, killAfterMs = 20_000): Promise<number | null> {
  const code = resources.controller ? await stopController(resources.controller, killAfterMs) : 0;
  await resources.queue?.deleteTopics([...resources.topics]).catch(() => undefined);
  await resources.queue?.close();
  await resources.repositories?.close();
  await resources.database?.drop();
  return code;
}
