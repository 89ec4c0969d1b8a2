import { createTaskRunner } from '../task-runners';
import { nodeScriptTask, recordingContext, temporaryFolder } from '../../testing/task-fixtures';

describe('node script: runs in a real Node child process under the shell rules', () => {
  const folder = temporaryFolder();
  afterAll(() => folder.remove());

  it('streams console output, reads env, runs in the working directory and outputs vars', async () => {
    const { context, lines } = recordingContext({ workingDirectory: folder.path });
    const task = nodeScriptTask(
      [
        "const fs = require('node:fs');",
        "fs.writeFileSync('made-by-script.txt', 'ok');",
        'console.log(`region ${process.env.REGION}`);',
        "console.error('a warning');",
        "console.log('::' + JSON.stringify({ outputs: { total: 7, cwdHasFile: fs.existsSync('made-by-script.txt') } }) + '::');",
      ].join('\n'),
      { env: { REGION: 'eu' } },
    );

    const outcome = await createTaskRunner().run(task, context);

    expect(outcome.state).toBe('SUCCESS');
    expect(outcome.outputs).toEqual({ exitCode: 0, vars: { total: 7, cwdHasFile: true } });
    // stdout and stderr are two pipes: their lines may interleave either way.
    expect(lines).toHaveLength(2);
    expect(lines).toEqual(
      expect.arrayContaining([
        { level: 'INFO', message: 'region eu' },
        { level: 'WARN', message: 'a warning' },
      ]),
    );
  });

  it('fails on an uncaught error with the exit code and the end of stderr', async () => {
    const { context } = recordingContext({ workingDirectory: folder.path });

    const outcome = await createTaskRunner().run(nodeScriptTask("throw new Error('the report is empty');"), context);

    expect(outcome.state).toBe('FAILED');
    expect(outcome.outputs).toMatchObject({ exitCode: 1 });
    expect(outcome.error).toMatch(/^the command exited with code 1\n/);
    expect(outcome.error).toContain('Error: the report is empty');
  });

  it('fails clearly when the working directory does not exist', async () => {
    const { context } = recordingContext({ workingDirectory: `${folder.path}/missing` });

    const outcome = await createTaskRunner().run(nodeScriptTask('console.log(1)'), context);

    expect(outcome.state).toBe('FAILED');
    expect(outcome.error).toBe(`the working directory ${folder.path}/missing does not exist on this worker`);
  });
});
