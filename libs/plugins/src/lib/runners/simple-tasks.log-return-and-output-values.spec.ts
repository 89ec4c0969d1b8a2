import { createTaskRunner, createTaskRunners } from '../task-runners';
import { logTask, outputValuesTask, recordingContext, returnTask, temporaryFolder } from '../../testing/task-fixtures';

describe('log, return and output values: Kestra outputs', () => {
  const folder = temporaryFolder();
  afterAll(() => folder.remove());
  const runner = createTaskRunner();

  it('Log logs each message of a list at its level and outputs nothing', async () => {
    const { context, lines } = recordingContext({ workingDirectory: folder.path });

    const outcome = await runner.run(logTask(['first', 'second', { n: 1 }], 'WARN'), context);

    expect(outcome).toMatchObject({ state: 'SUCCESS', outputs: {} });
    expect(lines).toEqual([
      { level: 'WARN', message: 'first' },
      { level: 'WARN', message: 'second' },
      { level: 'WARN', message: '{"n":1}' },
    ]);
  });

  it('Return outputs its rendered format as value', async () => {
    const { context } = recordingContext({ workingDirectory: folder.path });

    await expect(runner.run(returnTask('report for eu'), context)).resolves.toMatchObject({
      state: 'SUCCESS',
      outputs: { value: 'report for eu' },
    });
  });

  it('OutputValues outputs its values map as values', async () => {
    const { context } = recordingContext({ workingDirectory: folder.path });
    const values = { bucket: 'reports', count: 3, tags: ['a', 'b'], nested: { ok: true } };

    await expect(runner.run(outputValuesTask(values), context)).resolves.toMatchObject({ state: 'SUCCESS', outputs: { values } });
  });

  it('has an implementation for every runnable kind', () => {
    expect(Object.keys(createTaskRunners()).sort()).toEqual([
      'Fail',
      'HttpRequest',
      'LocalFiles',
      'Log',
      'NodeScript',
      'OutputValues',
      'PurgeCurrentExecutionFiles',
      'Return',
      'ShellCommands',
      'Sleep',
      'StorageConcat',
      'StorageDelete',
      'StorageSize',
      'StorageSplit',
      'StorageWrite',
    ]);
  });

  it('caps a log line at 64 KiB and says it was cut', async () => {
    const { context, lines } = recordingContext({ workingDirectory: folder.path });

    await runner.run(logTask('é'.repeat(70 * 1024)), context);

    expect(Buffer.byteLength(lines[0].message)).toBeLessThanOrEqual(64 * 1024);
    expect(lines[0].message.endsWith(' [truncated]')).toBe(true);
    expect(lines[0].message).not.toContain('\uFFFD');
  });

  it('fails a task whose outputs would not fit in a result frame', async () => {
    const { context } = recordingContext({ workingDirectory: folder.path });

    const outcome = await createTaskRunner({ maxOutputBytes: 1000 }).run(returnTask('x'.repeat(2000)), context);

    expect(outcome.state).toBe('FAILED');
    expect(outcome.outputs).toEqual({});
    expect(outcome.error).toMatch(/^the task's outputs are 2012 bytes, more than the 1000 bytes a result may carry/);
  });
});
