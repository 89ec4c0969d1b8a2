import { createTaskRunner } from '../task-runners';
import { recordingContext, shellCommandsTask, temporaryFolder } from '../../testing/task-fixtures';

describe('task timeout: a task that outlives its timeoutMs fails', () => {
  const folder = temporaryFolder();
  afterAll(() => folder.remove());

  it('stops the process and reports FAILED with the timeout, not KILLED', async () => {
    const { context } = recordingContext({ workingDirectory: folder.path });

    const outcome = await createTaskRunner().run(shellCommandsTask(['sleep 1000'], { timeoutMs: 200 }), context);

    expect(outcome.state).toBe('FAILED');
    expect(outcome.error).toBe('the task timed out after 200 ms');
  });

  it('treats an abort whose reason is a TimeoutError (AbortSignal.timeout) as a timeout too', async () => {
    const { context } = recordingContext({ workingDirectory: folder.path });

    const outcome = await createTaskRunner().run(shellCommandsTask(['sleep 1000']), {
      ...context,
      signal: AbortSignal.timeout(200),
    });

    expect(outcome.state).toBe('FAILED');
    expect(outcome.error).toBe('the task timed out');
  });
});
