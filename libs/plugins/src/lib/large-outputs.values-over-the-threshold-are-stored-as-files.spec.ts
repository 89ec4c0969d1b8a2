import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { localFolderStorage, parseStorageUri, taskRunFiles } from '@lanner/storage';
import { createTaskRunner } from './task-runners';
import { outputValuesTask, recordingContext, returnTask, temporaryFolder } from '../testing/task-fixtures';

describe('Return and OutputValues values over LANNER_STORAGE_OUTPUT_INLINE_MAX_BYTES', () => {
  const root = temporaryFolder('lanner-large-outputs-');
  afterAll(() => root.remove());
  const storage = localFolderStorage(join(root.path, 'storage'));
  const scope = { namespace: 'company.team', flowId: 'big', executionId: 'exec1' };
  const runner = createTaskRunner({ outputInlineMaxBytes: 1024 });
  const context = (taskRunId: string) =>
    recordingContext({
      workingDirectory: root.path,
      files: taskRunFiles(storage, 'main', { ...scope, taskId: 'big', taskRunId }),
    });
  const read = async (uri: string): Promise<string> => text(await storage.get('main', parseStorageUri(uri)));

  it('a Return value over the threshold is stored as a file and output as its URI, and logged', async () => {
    const big = 'é'.repeat(600); // 1200 bytes
    const { context: ctx, lines } = context('run1');

    const outcome = await runner.run(returnTask(big), ctx);

    expect(outcome.state).toBe('SUCCESS');
    const uri = String(outcome.outputs['value']);
    expect(uri).toBe('kestra:///company/team/big/executions/exec1/tasks/big/run1/value.txt');
    expect(await read(uri)).toBe(big);
    expect(lines).toContainEqual({ level: 'INFO', message: `output value is 1200 bytes, over 1024: stored as ${uri}` });
  });

  it('a Return value at the threshold stays inline', async () => {
    const outcome = await runner.run(returnTask('x'.repeat(1024)), context('run2').context);
    expect(outcome.outputs).toEqual({ value: 'x'.repeat(1024) });
  });

  it('only the OutputValues values over the threshold are stored, a list or map as JSON', async () => {
    const rows = Array.from({ length: 200 }, (_, index) => ({ index }));
    const outcome = await runner.run(outputValuesTask({ small: 'kept', rows, text: 'y'.repeat(2000) }), context('run3').context);

    expect(outcome.state).toBe('SUCCESS');
    const values = outcome.outputs['values'] as Record<string, string>;
    expect(values['small']).toBe('kept');
    expect(values['rows']).toBe('kestra:///company/team/big/executions/exec1/tasks/big/run3/values/rows.json');
    expect(JSON.parse(await read(values['rows']))).toEqual(rows);
    expect(await read(values['text'])).toBe('y'.repeat(2000));
  });

  it('a value bigger than a result frame could carry passes when it is stored', async () => {
    const small = createTaskRunner({ outputInlineMaxBytes: 1024, maxOutputBytes: 4096 });
    const outcome = await small.run(returnTask('z'.repeat(100_000)), context('run4').context);
    expect(outcome.state).toBe('SUCCESS');
    expect((await storage.stat('main', parseStorageUri(String(outcome.outputs['value']))))?.size).toBe(100_000);
  });

  it('without internal storage, a large value stays inline (and the frame limit applies as before)', async () => {
    const outcome = await runner.run(returnTask('w'.repeat(2000)), recordingContext({ workingDirectory: root.path }).context);
    expect(outcome.outputs).toEqual({ value: 'w'.repeat(2000) });
  });
});
