import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { tailSince } from './log-tail';

/** The workspace root; every role runs as users run it, `node bin/lanner.js server <role>`. */
export const workspaceRoot = join(__dirname, '..', '..', '..', '..');
export const lannerBin = join(workspaceRoot, 'bin', 'lanner.js');

export interface RoleProcessSpec {
  /** Unique name in the cluster (`worker-a`), also the log file's name. */
  readonly name: string;
  readonly role: 'api' | 'executor' | 'controller' | 'indexer' | 'scheduler' | 'worker';
  readonly httpPort: number;
  readonly env: NodeJS.ProcessEnv;
  readonly logFile: string;
}

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** One role process; its stdout and stderr go straight to its log file. */
export class RoleProcess {
  readonly exited: Promise<Exit>;
  private readonly child: ChildProcess;

  constructor(readonly spec: RoleProcessSpec) {
    const output = openSync(spec.logFile, 'a');
    try {
      this.child = spawn(process.execPath, [lannerBin, 'server', spec.role], {
        cwd: workspaceRoot,
        env: spec.env,
        stdio: ['ignore', output, output],
      });
    } finally {
      // The child holds its own copy of the descriptor.
      closeSync(output);
    }
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  isRunning(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Polls `/health/ready` until it answers 200; fails early, with the log tail, if the process exits. */
  async waitUntilReady(deadlineMs: number): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    let last = 'no answer yet';
    while (Date.now() < deadline) {
      if (!this.isRunning()) {
        throw new Error(`${this.spec.name} exited (${JSON.stringify(await this.exited)}) before it was ready\n${this.tail()}`);
      }
      try {
        const response = await fetch(`http://127.0.0.1:${this.spec.httpPort}/health/ready`, {
          signal: AbortSignal.timeout(5000),
        });
        const body = await response.text();
        if (response.status === 200) return;
        last = `${response.status} ${body}`;
      } catch (error) {
        last = error instanceof Error ? error.message : String(error);
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    throw new Error(`${this.spec.name} was not ready within ${deadlineMs} ms (last answer: ${last})\n${this.tail()}`);
  }

  /** Sends `signal` (a spec's SIGKILL of a role mid-flight) and resolves once the process is gone. */
  async signal(signal: NodeJS.Signals): Promise<Exit> {
    if (this.isRunning()) this.child.kill(signal);
    return this.exited;
  }

  /** SIGTERM, then SIGKILL after `graceMs`: a role must stop by itself, but never outlive the run. */
  async stop(graceMs: number): Promise<Exit> {
    if (!this.isRunning()) return this.exited;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      if (this.isRunning()) this.child.kill('SIGKILL');
    }, graceMs);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }

  /** The last lines of its log, without the health probes' request lines (the harness polls them). */
  tail(lines = 25): string {
    const meaningful = tailSince(this.spec.logFile, 0, lines * 20).filter((line) => !line.includes('"url":"/health/'));
    return `----- ${this.spec.name} log (${this.spec.logFile}) -----\n${meaningful.slice(-lines).join('\n')}`;
  }
}
