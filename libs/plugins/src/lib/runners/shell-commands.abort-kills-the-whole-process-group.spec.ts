import { readFileSync } from 'node:fs';
import { createTaskRunner } from '../task-runners';
import { recordingContext, shellCommandsTask, temporaryFolder } from '../../testing/task-fixtures';

/**
 * True while a process with this pid exists and has not exited. An orphan that was
 * killed is reaped by PID 1; until then it is a zombie, which has ended but still
 * answers signal 0, so a zombie counts as gone.
 */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .charAt(0);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

async function eventually(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('shell commands: aborting kills the whole process group', () => {
  const folder = temporaryFolder();
  afterAll(() => folder.remove());

  it('stops a sleep started in a background subshell and reports KILLED', async () => {
    const { context, abort, nextLine } = recordingContext({ workingDirectory: folder.path });
    const task = shellCommandsTask(['(sleep 1000 & echo "sleeper $!"; wait)']);

    const running = createTaskRunner().run(task, context);
    const started = await nextLine((line) => line.message.startsWith('sleeper '));
    const sleeperPid = Number(started.message.split(' ')[1]);
    expect(isRunning(sleeperPid)).toBe(true);

    abort();
    const outcome = await running;

    expect(outcome.state).toBe('KILLED');
    expect(outcome.error).toBe('the task was killed');
    await eventually(() => !isRunning(sleeperPid));
    expect(isRunning(sleeperPid)).toBe(false);
  });

  it('ends what a finished script left running in the background, so the task ends with its shell', async () => {
    const { context, nextLine } = recordingContext({ workingDirectory: folder.path });
    const task = shellCommandsTask(['sleep 1000 &', 'echo "sleeper $!"', 'echo done']);

    const outcome = await createTaskRunner().run(task, context);
    const started = await nextLine((line) => line.message.startsWith('sleeper '));
    const sleeperPid = Number(started.message.split(' ')[1]);

    expect(outcome.state).toBe('SUCCESS');
    await eventually(() => !isRunning(sleeperPid));
    expect(isRunning(sleeperPid)).toBe(false);
  });

  it('uses SIGKILL after the grace period when the processes ignore SIGTERM', async () => {
    const { context, abort, nextLine } = recordingContext({ workingDirectory: folder.path });
    // An ignored signal stays ignored across exec, so the sleep ignores SIGTERM too.
    const task = shellCommandsTask(["trap '' TERM", 'sleep 1000 & echo "sleeper $!"', 'wait']);

    const running = createTaskRunner({ scripts: { killGraceMs: 100 } }).run(task, context);
    const started = await nextLine((line) => line.message.startsWith('sleeper '));
    const sleeperPid = Number(started.message.split(' ')[1]);
    abort();
    const outcome = await running;

    expect(outcome.state).toBe('KILLED');
    await eventually(() => !isRunning(sleeperPid));
    expect(isRunning(sleeperPid)).toBe(false);
  });
});
