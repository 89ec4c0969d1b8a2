import { createTaskRunner } from '../task-runners';
import {
  httpRequestTask,
  logTask,
  nodeScriptTask,
  recordingContext,
  shellCommandsTask,
  temporaryFolder,
} from '../../testing/task-fixtures';

describe('secrets: values are masked in what a task logs', () => {
  const folder = temporaryFolder();
  afterAll(() => folder.remove());
  const secrets = { DB_PASSWORD: 'hunter2-long', PEM: 'line-one-of-key\nline-two-of-key' };

  it('masks a secret a shell script echoes, on stdout and stderr, while the script really used the value', async () => {
    const { context, lines } = recordingContext({ workingDirectory: folder.path, secrets });
    const task = shellCommandsTask([
      "PASSWORD='{{ secret('DB_PASSWORD') }}'",
      'echo "connecting with $PASSWORD"',
      'echo "$PASSWORD" >&2',
      'test "$PASSWORD" = hunter2-long && echo "value was right"',
    ]);

    const outcome = await createTaskRunner().run(task, context);

    expect(outcome.state).toBe('SUCCESS');
    // stdout and stderr are two pipes: their lines may interleave either way.
    expect(lines).toHaveLength(3);
    expect(lines).toEqual(
      expect.arrayContaining([
        { level: 'INFO', message: 'connecting with *****' },
        { level: 'WARN', message: '*****' },
        { level: 'INFO', message: 'value was right' },
      ]),
    );
  });

  it('masks each line of a multi-line secret printed by a script', async () => {
    const { context, lines } = recordingContext({ workingDirectory: folder.path, secrets });
    const task = nodeScriptTask('console.log(process.env.KEY)', { env: { KEY: "{{ secret('PEM') }}" } });

    await createTaskRunner().run(task, context);

    expect(lines.map((l) => l.message)).toEqual(['*****', '*****']);
  });

  it('masks a secret in a Log message and in a failure message', async () => {
    const { context, lines } = recordingContext({ workingDirectory: folder.path, secrets });

    await createTaskRunner().run(logTask("password is {{ secret('DB_PASSWORD') }}"), context);
    const failed = await createTaskRunner().run(httpRequestTask("not a url {{ secret('DB_PASSWORD') }}"), context);

    expect(lines.map((l) => l.message)).toEqual(['password is *****']);
    expect(failed.state).toBe('FAILED');
    expect(failed.error).toBe('uri is not a valid URL: not a url *****');
  });
});
