import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { localFolderStorage, parseStorageUri, taskRunFiles } from '@lanner/storage';
import { createTaskRunner } from '../task-runners';
import { nodeScriptTask, recordingContext, shellCommandsTask, temporaryFolder } from '../../testing/task-fixtures';

const scope = { namespace: 'company.team', flowId: 'etl', executionId: 'exec1' };

describe("script tasks' inputFiles and outputFiles", () => {
  const root = temporaryFolder();
  afterAll(() => root.remove());
  const storage = localFolderStorage(join(root.path, 'storage'));
  const folder = (name: string): string => {
    const path = join(root.path, name);
    mkdirSync(path, { recursive: true });
    return path;
  };

  it('stores the output files a shell script wrote, and the next task reads one through its URI', async () => {
    const writer = recordingContext({
      workingDirectory: folder('build'),
      files: taskRunFiles(storage, 'main', { ...scope, taskId: 'build', taskRunId: 'run1' }),
    });
    const built = await createTaskRunner().run(
      shellCommandsTask(
        ['printf "a,b\\n1,2\\n" > out.csv', 'mkdir -p reports && echo eu > reports/eu.txt', 'echo skip > notes.log'],
        {
          outputFiles: ['out.csv', 'reports/*.txt'],
        },
      ),
      writer.context,
    );
    expect(built.state).toBe('SUCCESS');
    expect(built.outputs['outputFiles']).toEqual({
      'out.csv': 'kestra:///company/team/etl/executions/exec1/tasks/build/run1/out.csv',
      'reports/eu.txt': 'kestra:///company/team/etl/executions/exec1/tasks/build/run1/reports/eu.txt',
    });

    const reader = recordingContext({
      workingDirectory: folder('read'),
      files: taskRunFiles(storage, 'main', { ...scope, taskId: 'read', taskRunId: 'run2' }),
    });
    const uri = (built.outputs['outputFiles'] as Record<string, string>)['out.csv'];
    const read = await createTaskRunner().run(
      shellCommandsTask(['wc -l < data.csv', 'cat header.txt'], {
        inputFiles: { 'data.csv': uri ?? '', 'header.txt': 'inline text' },
      }),
      reader.context,
    );
    expect(read.state).toBe('SUCCESS');
    expect(reader.lines.map((line) => line.message.trim())).toEqual(['2', 'inline text']);
  });

  it('gives a Node script its input files in the working directory and stores what it writes', async () => {
    const files = taskRunFiles(storage, 'main', { ...scope, taskId: 'node', taskRunId: 'run3' });
    const { context } = recordingContext({ workingDirectory: folder('node'), files });
    const outcome = await createTaskRunner().run(
      nodeScriptTask(
        "const fs = require('fs'); fs.writeFileSync('upper.txt', fs.readFileSync('in.txt', 'utf8').toUpperCase());",
        { inputFiles: { 'in.txt': 'hello' }, outputFiles: ['*.txt'] },
      ),
      context,
    );
    expect(outcome.state).toBe('SUCCESS');
    const stored = (outcome.outputs['outputFiles'] as Record<string, string>)['upper.txt'] ?? '';
    const chunks: Buffer[] = [];
    for await (const chunk of await storage.get('main', parseStorageUri(stored))) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('HELLO');
    // The input file matched `*.txt` too: it is stored as the script left it.
    expect(Object.keys(outcome.outputs['outputFiles'] as object).sort()).toEqual(['in.txt', 'upper.txt']);
  });

  it('never follows a link out of the working directory', async () => {
    const outside = join(root.path, 'outside.txt');
    writeFileSync(outside, 'worker file');
    const workingDirectory = folder('links');
    symlinkSync(outside, join(workingDirectory, 'leak.txt'));
    const { context } = recordingContext({
      workingDirectory,
      files: taskRunFiles(storage, 'main', { ...scope, taskId: 'links', taskRunId: 'run4' }),
    });
    const outcome = await createTaskRunner().run(shellCommandsTask(['echo own > own.txt'], { outputFiles: ['*.txt'] }), context);
    expect(outcome.outputs['outputFiles']).toEqual({
      'own.txt': 'kestra:///company/team/etl/executions/exec1/tasks/links/run4/own.txt',
    });
    expect(readFileSync(outside, 'utf8')).toBe('worker file');
  });

  it("fails reading another namespace's file, or another tenant's, naming the URI", async () => {
    const files = taskRunFiles(storage, 'other-tenant', { ...scope, taskId: 'read', taskRunId: 'run5' });
    const elsewhere = recordingContext({ workingDirectory: folder('elsewhere'), files });
    const foreign = await createTaskRunner().run(
      shellCommandsTask(['cat in.csv'], {
        inputFiles: { 'in.csv': 'kestra:///finance/etl/executions/exec1/tasks/build/run1/out.csv' },
      }),
      elsewhere.context,
    );
    expect(foreign).toMatchObject({
      state: 'FAILED',
      error:
        "kestra:///finance/etl/executions/exec1/tasks/build/run1/out.csv is outside namespace 'company.team': a task reads only files of its own namespace",
    });
    const otherTenant = await createTaskRunner().run(
      shellCommandsTask(['cat in.csv'], {
        inputFiles: { 'in.csv': 'kestra:///company/team/etl/executions/exec1/tasks/build/run1/out.csv' },
      }),
      elsewhere.context,
    );
    expect(otherTenant).toMatchObject({
      state: 'FAILED',
      error: 'file kestra:///company/team/etl/executions/exec1/tasks/build/run1/out.csv does not exist in internal storage',
    });
  });

  it('fails a task with file properties on a worker without internal storage', async () => {
    const { context } = recordingContext({ workingDirectory: folder('none') });
    const outcome = await createTaskRunner().run(shellCommandsTask(['echo x > x.txt'], { outputFiles: ['x.txt'] }), context);
    expect(outcome).toMatchObject({
      state: 'FAILED',
      error: 'outputFiles needs internal storage, and this worker has none configured',
    });
  });

  it('refuses an input file name that leaves the working directory', async () => {
    const { context } = recordingContext({ workingDirectory: folder('escape') });
    const outcome = await createTaskRunner().run(shellCommandsTask(['true'], { inputFiles: { '../x.txt': 'no' } }), context);
    expect(outcome).toMatchObject({
      state: 'FAILED',
      error: "inputFiles: file name '../x.txt': '..' is not allowed as a path segment",
    });
  });
});
