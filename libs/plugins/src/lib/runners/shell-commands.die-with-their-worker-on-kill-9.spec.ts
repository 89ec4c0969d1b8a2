import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporaryFolder } from '../../testing/task-fixtures';

const workspaceRoot = join(__dirname, '..', '..', '..', '..', '..');
const fixture = join(__dirname, '..', '..', 'testing', 'shell-task-process.fixture.ts');

/** True while the process exists and has not ended (a zombie waiting for its parent counts as ended). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .charAt(0);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

async function waitUntil(condition: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: still not true after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('shell commands: the task processes die with their worker', () => {
  const folder = temporaryFolder();
  afterAll(() => folder.remove());

  it('leaves no task process alive after a kill -9 of the process that ran the task', async () => {
    const shellPidFile = join(folder.path, 'shell.pid');
    const sleeperPidFile = join(folder.path, 'sleeper.pid');
    const worker = spawn(
      process.execPath,
      ['-r', '@swc-node/register', fixture, folder.path, 'echo $$ > shell.pid', 'sleep 1000 & echo $! > sleeper.pid', 'wait'],
      {
        cwd: workspaceRoot,
        env: { ...process.env, SWC_NODE_PROJECT: join(workspaceRoot, 'tsconfig.base.json') },
        stdio: 'ignore',
      },
    );
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    try {
      await waitUntil(
        () => existsSync(sleeperPidFile) && readFileSync(sleeperPidFile, 'utf8').endsWith('\n'),
        'the task started',
        30_000,
      );
      const shellPid = Number(readFileSync(shellPidFile, 'utf8').trim());
      const sleeperPid = Number(readFileSync(sleeperPidFile, 'utf8').trim());
      expect([isRunning(shellPid), isRunning(sleeperPid)]).toEqual([true, true]);

      worker.kill('SIGKILL');
      await exited;

      await waitUntil(() => !isRunning(shellPid) && !isRunning(sleeperPid), 'the task processes ended', 5_000);
      expect([isRunning(shellPid), isRunning(sleeperPid)]).toEqual([false, false]);
    } finally {
      if (worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
    }
  }, 60_000);
});
