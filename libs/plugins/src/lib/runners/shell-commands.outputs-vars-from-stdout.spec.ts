import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTaskRunner } from '../task-runners';
import { recordingContext, shellCommandsTask, temporaryFolder } from '../../testing/task-fixtures';

describe('shell commands: outputs vars from ::{"outputs":...}:: lines in stdout', () => {
  const folder = temporaryFolder();
  afterAll(() => folder.remove());

  it('merges the output lines into vars, logs the other lines live, and uses env and the working directory', async () => {
    writeFileSync(join(folder.path, 'input.txt'), 'from the working directory\n');
    const { context, lines } = recordingContext({ workingDirectory: folder.path });
    const task = shellCommandsTask(
      [
        'echo "hello $GREETING"',
        'cat input.txt',
        `echo '::{"outputs":{"path":"/reports/eu.csv","rows":3}}::'`,
        `echo '::{"outputs":{"rows":42,"nested":{"ok":true}}}::'`,
        'echo "not an output ::{broken}::"',
      ],
      { env: { GREETING: 'lanner' } },
    );

    const outcome = await createTaskRunner().run(task, context);

    expect(outcome).toEqual({
      state: 'SUCCESS',
      outputs: { exitCode: 0, vars: { path: '/reports/eu.csv', rows: 42, nested: { ok: true } } },
      error: undefined,
      cacheHit: false,
    });
    expect(lines).toEqual([
      { level: 'INFO', message: 'hello lanner' },
      { level: 'INFO', message: 'from the working directory' },
      { level: 'INFO', message: 'not an output ::{broken}::' },
    ]);
  });

  it('does not hand the worker environment (and its SECRET_ variables) to the task', async () => {
    process.env['SECRET_WORKER_ONLY'] = Buffer.from('do-not-leak').toString('base64');
    try {
      const { context, lines } = recordingContext({ workingDirectory: folder.path });
      const outcome = await createTaskRunner().run(shellCommandsTask(['env']), context);

      expect(outcome.state).toBe('SUCCESS');
      expect(lines.some((l) => l.message.includes('SECRET_WORKER_ONLY'))).toBe(false);
      expect(lines.some((l) => l.message.startsWith('PATH='))).toBe(true);
    } finally {
      delete process.env['SECRET_WORKER_ONLY'];
    }
  });
});
