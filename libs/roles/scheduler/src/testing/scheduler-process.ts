// Scheduler processes (`lanner server scheduler`, as users run them) for the integration specs.

import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';

const WORKSPACE = resolve(__dirname, '../../../../..');
const logDir = mkdtempSync(join(tmpdir(), 'lanner-schedulers-'));

/** Runs one statement on the dev server's default database (CREATE/DROP DATABASE). */
export async function onServer(sql: string): Promise<void> {
  const admin = new Client({ connectionString: process.env['DATABASE_URL'] });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

export class SchedulerProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  constructor(
    readonly name: string,
    readonly port: number,
    env: NodeJS.ProcessEnv,
  ) {
    const output = openSync(join(logDir, `${name}.log`), 'a');
    try {
      this.child = spawn(process.execPath, [join(WORKSPACE, 'bin/lanner.js'), 'server', 'scheduler'], {
        cwd: WORKSPACE,
        env: { ...env, LANNER_HTTP_PORT: String(port), LANNER_HTTP_HOST: '127.0.0.1' },
        stdio: ['ignore', output, output],
      });
    } finally {
      closeSync(output);
    }
    this.exited = new Promise((done) => this.child.once('exit', () => done()));
  }

  async ready(): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`${this.name} exited:\n${this.log()}`);
      const answer = await fetch(`http://127.0.0.1:${this.port}/health/ready`).catch(() => undefined);
      if (answer?.status === 200) return;
      await new Promise((done) => setTimeout(done, 300));
    }
    throw new Error(`${this.name} not ready:\n${this.log()}`);
  }

  log(): string {
    return readFileSync(join(logDir, `${this.name}.log`), 'utf8')
      .split('\n')
      .slice(-30)
      .join('\n');
  }

  async stop(signal: NodeJS.Signals): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    await this.exited;
  }
}
