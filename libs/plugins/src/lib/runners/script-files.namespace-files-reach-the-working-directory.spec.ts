import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { localFolderStorage, namespaceFileUri, taskRunFiles } from '@lanner/storage';
import { createTaskRunner } from '../task-runners';
import { nodeScriptTask, recordingContext, shellCommandsTask, temporaryFolder } from '../../testing/task-fixtures';

// Kestra's namespaceFiles on script tasks, against a local storage folder: the namespace's
// files (kestra:///<namespace>/_files/...) are copied into the working directory, filtered
// by include and exclude; another namespace's files never are.
const scope = { namespace: 'company.team', flowId: 'etl', executionId: 'exec1' };

describe("script tasks' namespaceFiles", () => {
  const root = temporaryFolder();
  afterAll(() => root.remove());
  const storage = localFolderStorage(join(root.path, 'storage'));
  let runs = 0;
  const context = () => {
    runs += 1;
    const workingDirectory = join(root.path, `run-${runs}`);
    mkdirSync(workingDirectory, { recursive: true });
    return recordingContext({
      workingDirectory,
      files: taskRunFiles(storage, 'main', { ...scope, taskId: 'script', taskRunId: `run${runs}` }),
    });
  };
  const listing = 'find . -type f | sort | tr "\\n" " "';

  beforeAll(async () => {
    const put = (namespace: string, path: string, content: string) =>
      storage.put('main', namespaceFileUri(namespace, path), Readable.from([Buffer.from(content)]));
    await put('company.team', 'scripts/hello.sh', 'echo hello from a namespace file');
    await put('company.team', 'scripts/lib/util.sh', 'echo util');
    await put('company.team', 'data/rows.csv', 'a,b');
    await put('company.team', 'notes.txt', 'ignore me');
    await put('other.team', 'theirs.txt', 'not for company.team');
  });

  it('copies every namespace file into the working directory when enabled, and the script runs one', async () => {
    const { context: ctx, lines } = context();
    const outcome = await createTaskRunner().run(
      shellCommandsTask([`${listing}; echo`, 'sh scripts/hello.sh'], { namespaceFiles: { enabled: true } }),
      ctx,
    );
    expect(outcome.state).toBe('SUCCESS');
    expect(lines.map((line) => line.message)).toEqual([
      './data/rows.csv ./notes.txt ./scripts/hello.sh ./scripts/lib/util.sh ',
      'hello from a namespace file',
    ]);
  });

  it('keeps only the files matching include and no exclude glob', async () => {
    const { context: ctx, lines } = context();
    await createTaskRunner().run(
      shellCommandsTask([listing], {
        namespaceFiles: { enabled: true, include: ['scripts/**', '*.txt'], exclude: ['**/lib/**'] },
      }),
      ctx,
    );
    expect(lines.map((line) => line.message)).toEqual(['./notes.txt ./scripts/hello.sh ']);
  });

  it('copies nothing when not enabled, and inputFiles win over a namespace file of the same name', async () => {
    const off = context();
    await createTaskRunner().run(shellCommandsTask([`${listing}; echo`], { namespaceFiles: { enabled: false } }), off.context);
    expect(off.lines.map((line) => line.message)).toEqual(['']);

    const both = context();
    const outcome = await createTaskRunner().run(
      nodeScriptTask("console.log(require('fs').readFileSync('notes.txt', 'utf8'))", {
        namespaceFiles: { enabled: true, include: ['notes.txt'] },
        inputFiles: { 'notes.txt': 'from inputFiles' },
      }),
      both.context,
    );
    expect(outcome.state).toBe('SUCCESS');
    expect(both.lines.map((line) => line.message)).toContain('from inputFiles');
  });

  it('fails saying so on a worker without internal storage', async () => {
    const workingDirectory = join(root.path, 'no-storage');
    mkdirSync(workingDirectory, { recursive: true });
    const outcome = await createTaskRunner().run(
      shellCommandsTask(['true'], { namespaceFiles: { enabled: true } }),
      recordingContext({ workingDirectory }).context,
    );
    expect(outcome).toMatchObject({
      state: 'FAILED',
      error: 'namespaceFiles needs internal storage, and this worker has none configured',
    });
  });
});
