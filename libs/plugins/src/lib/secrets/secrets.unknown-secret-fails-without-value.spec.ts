import { existsSync } from 'node:fs';
import { createTaskRunner } from '../task-runners';
import { recordingContext, shellCommandsTask, temporaryFolder } from '../../testing/task-fixtures';

describe('secrets: an unknown secret fails the task without printing any value', () => {
  const folder = temporaryFolder();
  afterAll(() => folder.remove());

  it('fails before running anything and names only the missing secret', async () => {
    const { context, lines } = recordingContext({ workingDirectory: folder.path, secrets: { DB_PASSWORD: 's3cr3t-value' } });
    const marker = `${folder.path}/ran`;
    const task = shellCommandsTask([`touch ${marker}`, "echo {{ secret('DB_PASSWORD') }} {{ secret('API_KEY') }}"]);

    const outcome = await createTaskRunner().run(task, context);

    expect(outcome).toEqual({
      state: 'FAILED',
      outputs: {},
      error: "secret 'API_KEY' is not defined on this worker",
      cacheHit: false,
    });
    expect(lines).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  });

  it('reads secrets from SECRET_<NAME> (base64) in the worker environment by default', async () => {
    process.env['SECRET_REPORT_TOKEN'] = Buffer.from('token-from-env').toString('base64');
    process.env['SECRET_BROKEN'] = 'not base64!';
    try {
      const { context } = recordingContext({ workingDirectory: folder.path });
      const withDefaultSource = { ...context, secrets: undefined };

      const ok = await createTaskRunner().run(
        shellCommandsTask(['test "{{ secret(\'REPORT_TOKEN\') }}" = token-from-env']),
        withDefaultSource,
      );
      const broken = await createTaskRunner().run(shellCommandsTask(["echo {{ secret('BROKEN') }}"]), withDefaultSource);

      expect(ok.state).toBe('SUCCESS');
      expect(broken).toMatchObject({
        state: 'FAILED',
        error: "secret 'BROKEN' on this worker is not valid base64 (variable SECRET_BROKEN)",
      });
    } finally {
      delete process.env['SECRET_REPORT_TOKEN'];
      delete process.env['SECRET_BROKEN'];
    }
  });
});
