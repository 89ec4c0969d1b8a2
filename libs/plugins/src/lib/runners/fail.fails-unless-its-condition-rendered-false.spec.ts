import type { FailTask } from '@lanner/model';
import { recordingContext, temporaryFolder } from '../../testing/task-fixtures';
import { createTaskRunner } from '../task-runners';

const fail = (errorMessage: string, condition?: string): FailTask => ({
  id: 'stop',
  type: 'io.kestra.plugin.core.execution.Fail',
  kind: 'Fail',
  disabled: false,
  allowFailure: false,
  allowWarning: false,
  errorMessage,
  ...(condition !== undefined ? { condition } : {}),
});

// Kestra's Fail (a runnable task): its rendered condition is false only as
// 'false', '0', '-0' or '' (TruthUtils); otherwise it fails with its message.
describe('Fail on a worker', () => {
  const folder = temporaryFolder();
  afterAll(() => folder.remove());
  const runner = createTaskRunner();

  it('fails with its message, logged at ERROR, when it has no condition', async () => {
    const { context, lines } = recordingContext({ workingDirectory: folder.path });
    await expect(runner.run(fail('the input file is empty'), context)).resolves.toMatchObject({
      state: 'FAILED',
      error: 'the input file is empty',
    });
    expect(lines).toEqual([{ level: 'ERROR', message: 'the input file is empty' }]);
  });

  it.each(['false', '0', '-0', ''])('succeeds when its condition rendered %j', async (condition) => {
    const { context } = recordingContext({ workingDirectory: folder.path });
    await expect(runner.run(fail('x', condition), context)).resolves.toMatchObject({ state: 'SUCCESS' });
  });

  it.each(['true', 'yes', 'FALSE', '1'])('fails when its condition rendered %j', async (condition) => {
    const { context } = recordingContext({ workingDirectory: folder.path });
    await expect(runner.run(fail('x', condition), context)).resolves.toMatchObject({ state: 'FAILED' });
  });
});
