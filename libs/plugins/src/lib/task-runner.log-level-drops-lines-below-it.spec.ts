import { logTask, recordingContext, temporaryFolder } from '../testing/task-fixtures';
import { createTaskRunner } from './task-runners';

// Kestra's task `logLevel`: the lines a task logs below it are not kept.
describe("a task's logLevel", () => {
  const folder = temporaryFolder();
  afterAll(() => folder.remove());
  const runner = createTaskRunner();

  it('drops the lines below it and keeps the others', async () => {
    const quiet = recordingContext({ workingDirectory: folder.path });
    await runner.run({ ...logTask(['chatty'], 'INFO'), logLevel: 'WARN' }, quiet.context);
    expect(quiet.lines).toEqual([]);

    const loud = recordingContext({ workingDirectory: folder.path });
    await runner.run({ ...logTask(['alarm'], 'ERROR'), logLevel: 'WARN' }, loud.context);
    expect(loud.lines).toEqual([{ level: 'ERROR', message: 'alarm' }]);
  });

  it('keeps every line without one', async () => {
    const { context, lines } = recordingContext({ workingDirectory: folder.path });
    await runner.run(logTask(['detail'], 'DEBUG'), context);
    expect(lines).toEqual([{ level: 'DEBUG', message: 'detail' }]);
  });
});
