import { createTaskRunner } from '../task-runners';
import { recordingContext, sleepTask, temporaryFolder } from '../../testing/task-fixtures';

describe('sleep: aborting stops it early', () => {
  const folder = temporaryFolder();
  afterAll(() => folder.remove());

  it('ends an hour-long sleep as KILLED when the signal aborts', async () => {
    const { context, abort } = recordingContext({ workingDirectory: folder.path });

    const running = createTaskRunner().run(sleepTask(60 * 60 * 1000), context);
    abort();

    await expect(running).resolves.toEqual({ state: 'KILLED', outputs: {}, error: 'the task was killed', cacheHit: false });
  });

  it('does not start at all when the signal is already aborted', async () => {
    const { context, abort } = recordingContext({ workingDirectory: folder.path });
    abort();

    const outcome = await createTaskRunner().run(sleepTask(60 * 60 * 1000), context);

    expect(outcome.state).toBe('KILLED');
  });

  it('succeeds with no outputs when it sleeps its whole duration', async () => {
    const { context } = recordingContext({ workingDirectory: folder.path });

    await expect(createTaskRunner().run(sleepTask(10), context)).resolves.toMatchObject({ state: 'SUCCESS', outputs: {} });
  });
});
