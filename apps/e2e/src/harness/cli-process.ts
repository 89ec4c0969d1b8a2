import { spawn } from 'node:child_process';
import { lannerBin } from './role-process';

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the `lanner` CLI as a user's shell does: a child process with its own
 * environment (no LANNER_* variables unless given), its output collected.
 */
export function runCli(args: readonly string[], env: Record<string, string> = {}, cwd?: string): Promise<CliRun> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('LANNER_')));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [lannerBin, ...args], {
      env: { ...inherited, ...env },
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
