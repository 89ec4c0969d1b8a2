import { createTaskRunner } from '../task-runners';
import { recordingContext, shellCommandsTask, temporaryFolder } from '../../testing/task-fixtures';

describe('shell commands: a non-zero exit fails the task with the stderr tail', () => {
  const folder = temporaryFolder();
  afterAll(() => folder.remove());
  const runner = createTaskRunner();

  it('reports the exit code and the last 20 stderr lines, and still outputs exitCode', async () => {
    const { context, lines } = recordingContext({ workingDirectory: folder.path });
    const task = shellCommandsTask(['for i in $(seq 1 30); do echo "problem $i" >&2; done', 'exit 3']);

    const outcome = await runner.run(task, context);

    expect(outcome.state).toBe('FAILED');
    expect(outcome.outputs).toEqual({ exitCode: 3, vars: {} });
    const [cause, ...tail] = (outcome.error ?? '').split('\n');
    expect(cause).toBe('the command exited with code 3');
    expect(tail).toEqual(Array.from({ length: 20 }, (_, i) => `problem ${i + 11}`));
    // Every stderr line was also streamed to the log, as a warning.
    expect(lines.filter((l) => l.level === 'WARN')).toHaveLength(30);
  });

  it('stops at the first failing command (set -e), as Kestra does', async () => {
    const { context, lines } = recordingContext({ workingDirectory: folder.path });
    const task = shellCommandsTask(['echo before', 'false', 'echo after']);

    const outcome = await runner.run(task, context);

    expect(outcome.state).toBe('FAILED');
    expect(outcome.error).toBe('the command exited with code 1');
    expect(lines.map((l) => l.message)).toEqual(['before']);
  });
});
