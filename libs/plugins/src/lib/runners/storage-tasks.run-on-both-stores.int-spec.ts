import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import {
  localFolderStorage,
  parseStorageUri,
  s3Storage,
  taskRunFiles,
  type InternalStorage,
  type TaskFiles,
} from '@lanner/storage';
import {
  TASK_TYPES,
  type RunnableTask,
  type StorageConcatTask,
  type StorageDeleteTask,
  type StorageSizeTask,
  type StorageSplitTask,
  type StorageWriteTask,
} from '@lanner/model';
import { renderTemplate } from '@lanner/expressions';
import { createTaskRunner } from '../task-runners';
import { recordingContext, temporaryFolder } from '../../testing/task-fixtures';

// Kestra's core storage tasks (Write, Size, Concat, Delete) run by the worker's task
// runner against each internal storage adapter: the local folder and the S3 one on the
// S3-compatible server the dev services start (SeaweedFS).

const scope = { namespace: 'company.team', flowId: 'files', executionId: `exec-${randomBytes(4).toString('hex')}` };
const common = { disabled: false, allowFailure: false, allowWarning: false };
const root = temporaryFolder('lanner-storage-tasks-');
afterAll(() => root.remove());

const write = (id: string, content: string, extension = '.ion'): StorageWriteTask => ({
  ...common,
  id,
  type: TASK_TYPES.StorageWrite,
  kind: 'StorageWrite',
  content,
  extension,
});
const size = (uri: string): StorageSizeTask => ({
  ...common,
  id: 'size',
  type: TASK_TYPES.StorageSize,
  kind: 'StorageSize',
  uri,
});
const remove = (uri: string, errorOnMissing = false): StorageDeleteTask => ({
  ...common,
  id: 'delete',
  type: TASK_TYPES.StorageDelete,
  kind: 'StorageDelete',
  uri,
  errorOnMissing,
});
const concat = (files: StorageConcatTask['files'], separator?: string): StorageConcatTask => ({
  ...common,
  id: 'concat',
  type: TASK_TYPES.StorageConcat,
  kind: 'StorageConcat',
  files,
  extension: '.txt',
  ...(separator === undefined ? {} : { separator }),
});

const split = (from: string, by: StorageSplitTask['by'], separator = '\n'): StorageSplitTask => ({
  ...common,
  id: 'split',
  type: TASK_TYPES.StorageSplit,
  kind: 'StorageSplit',
  from,
  by,
  separator,
});
/** A Return whose format went through the executor's rendering, as a worker receives it. */
const returning = (format: string, context: Record<string, unknown>): RunnableTask => ({
  ...common,
  id: 'ret',
  type: TASK_TYPES.Return,
  kind: 'Return',
  format: renderTemplate(format, context, { now: new Date() }),
});
const purge = (): RunnableTask => ({
  ...common,
  id: 'purge',
  type: TASK_TYPES.PurgeCurrentExecutionFiles,
  kind: 'PurgeCurrentExecutionFiles',
});

async function s3(): Promise<InternalStorage> {
  const endpoint = process.env['S3_ENDPOINT'];
  if (!endpoint) throw new Error('S3_ENDPOINT is not set: run `npm run services:up` first');
  const bucket = process.env['S3_BUCKET'] ?? 'lanner-storage-tasks';
  const storage = s3Storage({
    bucket,
    endpoint,
    region: process.env['AWS_REGION'] ?? 'us-east-1',
    forcePathStyle: true,
    prefix: `storage-tasks-${randomBytes(6).toString('hex')}`,
  });
  await storage.client.send(new CreateBucketCommand({ Bucket: bucket })).catch((error: { name?: string }) => {
    if (error.name !== 'BucketAlreadyOwnedByYou' && error.name !== 'BucketAlreadyExists') throw error;
  });
  return storage;
}

describe.each([
  ['local folder', async (): Promise<InternalStorage> => localFolderStorage(join(root.path, 'store'))],
  ['S3-compatible (SeaweedFS)', s3],
])('core storage tasks on the %s store', (_name, makeStorage) => {
  let storage: InternalStorage;
  let runs = 0;
  beforeAll(async () => {
    storage = await makeStorage();
  });

  /** Runs one task as a task run of its own, the way the worker does. */
  async function run(task: RunnableTask, namespace = scope.namespace, executionId = scope.executionId) {
    runs += 1;
    const workingDirectory = join(root.path, `run-${runs}`);
    mkdirSync(workingDirectory, { recursive: true });
    const files: TaskFiles = taskRunFiles(storage, 'main', {
      ...scope,
      namespace,
      executionId,
      taskId: task.id,
      taskRunId: `tr${runs}`,
    });
    return createTaskRunner().run(task, recordingContext({ workingDirectory, files }).context);
  }
  const read = async (uri: string): Promise<string> => text(await storage.get('main', parseStorageUri(uri)));

  it('Write stores the content as a file of its task run, and Size gives its bytes', async () => {
    const written = await run(write('hello', 'héllo\n', '.txt'));
    expect(written.state).toBe('SUCCESS');
    const uri = String(written.outputs['uri']);
    expect(uri).toMatch(
      new RegExp(`^kestra:///company/team/files/executions/${scope.executionId}/tasks/hello/tr\\d+/[0-9a-f-]{36}\\.txt$`),
    );
    expect(await read(uri)).toBe('héllo\n');

    const sized = await run(size(uri));
    expect(sized).toMatchObject({ state: 'SUCCESS', outputs: { size: Buffer.byteLength('héllo\n') } });
  });

  it('Concat joins the files in order with the separator, from a list or a JSON list of URIs', async () => {
    const first = String((await run(write('a', 'one'))).outputs['uri']);
    const second = String((await run(write('b', 'two'))).outputs['uri']);
    const third = String((await run(write('c', 'three'))).outputs['uri']);

    const joined = await run(concat([first, second, third], '\n'));
    expect(joined.state).toBe('SUCCESS');
    expect(String(joined.outputs['uri'])).toMatch(/\/tasks\/concat\/tr\d+\/[0-9a-f-]{36}\.txt$/);
    expect(await read(String(joined.outputs['uri']))).toBe('one\ntwo\nthree');

    const fromJson = await run(concat(JSON.stringify([third, first])));
    expect(await read(String(fromJson.outputs['uri']))).toBe('threeone');
  });

  it('Concat of a missing file fails naming it and stores nothing', async () => {
    const present = String((await run(write('d', 'kept'))).outputs['uri']);
    const missing = present.replace(/[0-9a-f-]{36}\.ion$/, 'not-there.ion');
    const before = await storage.list('main', parseStorageUri(`kestra:///company/team/files/executions/${scope.executionId}`));

    const outcome = await run(concat([present, missing]));
    expect(outcome.state).toBe('FAILED');
    expect(outcome.error).toBe(`file ${missing} does not exist in internal storage`);
    const after = await storage.list('main', parseStorageUri(`kestra:///company/team/files/executions/${scope.executionId}`));
    expect(after).toEqual(before);
  });

  it('Delete removes the file; a second Delete says deleted false, or fails with errorOnMissing', async () => {
    const uri = String((await run(write('e', 'to delete'))).outputs['uri']);

    expect(await run(remove(uri))).toMatchObject({ state: 'SUCCESS', outputs: { uri, deleted: true } });
    expect(await storage.stat('main', parseStorageUri(uri))).toBeUndefined();
    expect(await run(remove(uri))).toMatchObject({ state: 'SUCCESS', outputs: { uri, deleted: false } });
    expect(await run(remove(uri, true))).toMatchObject({
      state: 'FAILED',
      error: `file ${uri} does not exist in internal storage`,
    });
    expect(await run(size(uri))).toMatchObject({ state: 'FAILED', error: `file ${uri} does not exist in internal storage` });
  });

  it('refuses a file of another namespace, naming it, and leaves that file alone', async () => {
    const other = String((await run(write('f', 'not yours'), 'other.team')).outputs['uri']);

    for (const task of [size(other), remove(other), concat([other])]) {
      const outcome = await run(task);
      expect(outcome.state).toBe('FAILED');
      expect(outcome.error).toBe(`${other} is outside namespace 'company.team': a task reads only files of its own namespace`);
    }
    expect(await read(other)).toBe('not yours');
  });

  it('Concat streams a file larger than any one chunk through unchanged', async () => {
    const big = 'x'.repeat(1024 * 1024) + 'end';
    const stored = await storage.put(
      'main',
      parseStorageUri(`kestra:///company/team/files/executions/${scope.executionId}/inputs/big/big.txt`),
      Readable.from([Buffer.from(big)]),
    );
    const joined = await run(concat([stored.uri, stored.uri], '|'));
    expect((await storage.stat('main', parseStorageUri(String(joined.outputs['uri']))))?.size).toBe(big.length * 2 + 1);
  });

  it('Write refuses an extension that is not one, naming the property', async () => {
    const outcome = await run(write('g', 'x', '../escape'));
    expect(outcome).toMatchObject({
      state: 'FAILED',
      error: "extension '../escape' is not a file extension (letters, digits, '-' or '_' after an optional dot)",
    });
  });

  describe('Split', () => {
    let source: string;
    beforeAll(async () => {
      source = String((await run(write('lines', 'r1\nr2\nr3\nr4\nr5', '.csv'))).outputs['uri']);
    });
    const contents = async (outcome: { outputs: Record<string, unknown> }): Promise<string[]> =>
      Promise.all((outcome.outputs['uris'] as string[]).map(read));

    it('by rows: files of that many rows, each row ending with the separator, named after the source', async () => {
      const outcome = await run(split(source, { kind: 'rows', value: '2' }));
      expect(outcome.state).toBe('SUCCESS');
      expect(await contents(outcome)).toEqual(['r1\nr2\n', 'r3\nr4\n', 'r5\n']);
      expect(outcome.outputs['uris']).toEqual([
        expect.stringMatching(/\/tasks\/split\/tr\d+\/split-0\.csv$/),
        expect.stringMatching(/split-1\.csv$/),
        expect.stringMatching(/split-2\.csv$/),
      ]);
    });

    it('by partitions: the rows dealt round-robin, empty partitions left out', async () => {
      expect(await contents(await run(split(source, { kind: 'partitions', value: '2' })))).toEqual(['r1\nr3\nr5\n', 'r2\nr4\n']);
      expect(await contents(await run(split(source, { kind: 'partitions', value: '8' })))).toHaveLength(5);
    });

    it('by bytes: no file over the size unless one row alone is; a size such as 1KB', async () => {
      expect(await contents(await run(split(source, { kind: 'bytes', value: '7' })))).toEqual(['r1\nr2\n', 'r3\nr4\n', 'r5\n']);
      expect(await contents(await run(split(source, { kind: 'bytes', value: '1KB' })))).toEqual(['r1\nr2\nr3\nr4\nr5\n']);
    });

    it('with another separator', async () => {
      const semis = String((await run(write('semis', 'a;b;c'))).outputs['uri']);
      expect(await contents(await run(split(semis, { kind: 'rows', value: '2' }, ';')))).toEqual(['a;b;', 'c;']);
    });

    it('refuses a size or a count that is not one, naming the property', async () => {
      expect(await run(split(source, { kind: 'bytes', value: 'lots' }))).toMatchObject({
        state: 'FAILED',
        error: 'bytes must be a positive size such as 10MB, 200KB or 1024; it rendered to "lots"',
      });
      expect(await run(split(source, { kind: 'rows', value: '0' }))).toMatchObject({
        state: 'FAILED',
        error: 'rows must be a positive whole number; it rendered to "0"',
      });
    });
  });

  it('PurgeCurrentExecutionFiles deletes every file of its execution and no other', async () => {
    const executionId = `purged-${randomBytes(4).toString('hex')}`;
    const input = await storage.put(
      'main',
      parseStorageUri(`kestra:///company/team/files/executions/${executionId}/inputs/data/data.csv`),
      Readable.from([Buffer.from('a,b')]),
    );
    const output = String((await run(write('w', 'mine'), scope.namespace, executionId)).outputs['uri']);
    const kept = String((await run(write('k', 'not this execution'))).outputs['uri']);

    const outcome = await run(purge(), scope.namespace, executionId);
    expect(outcome.state).toBe('SUCCESS');
    expect([...(outcome.outputs['uris'] as string[])].sort()).toEqual([input.uri, output].sort());
    expect(await storage.stat('main', parseStorageUri(input.uri))).toBeUndefined();
    expect(await storage.stat('main', parseStorageUri(output))).toBeUndefined();
    expect(await read(kept)).toBe('not this execution');
    expect(await run(purge(), scope.namespace, executionId)).toMatchObject({ state: 'SUCCESS', outputs: { uris: [] } });
  });

  describe('read(), fileSize(), fileExists() and isFileEmpty() in task properties, resolved on the worker', () => {
    it('give the content, the size and the existence of files of the namespace', async () => {
      const uri = String((await run(write('src', 'a,b\n1,2\n', '.csv'))).outputs['uri']);
      const empty = String((await run(write('empty', ''))).outputs['uri']);
      const outputs = { src: { uri }, empty: { uri: empty } };
      const outcome = await run(
        returning(
          '{{ read(outputs.src.uri) | trim }}|{{ fileSize(outputs.src.uri) }}|{{ fileExists(outputs.src.uri) }}|' +
            "{{ fileExists(outputs.src.uri ~ '.none') }}|{{ isFileEmpty(outputs.empty.uri) }}",
          { outputs },
        ),
      );
      expect(outcome).toMatchObject({ state: 'SUCCESS', outputs: { value: 'a,b\n1,2|8|true|false|true' } });
    });

    it("fail the task, naming the URI, for a missing file or another namespace's file", async () => {
      const other = String((await run(write('theirs', 'secret data'), 'other.team')).outputs['uri']);
      const missing = await run(returning("{{ read('kestra:///company/team/none.txt') }}", {}));
      expect(missing.state).toBe('FAILED');
      expect(missing.error).toContain('read(): file kestra:///company/team/none.txt does not exist in internal storage');

      const refused = await run(returning('{{ read(outputs.x.uri) }}', { outputs: { x: { uri: other } } }));
      expect(refused.state).toBe('FAILED');
      expect(refused.error).toContain(
        `read(): ${other} is outside namespace 'company.team': a task reads only files of its own namespace`,
      );
      expect(refused.error).not.toContain('secret data');
    });
  });

  it('LocalFiles writes its inputs (content or a kestra:/// URI) and stores those matching outputs', async () => {
    const source = String((await run(write('src2', 'from storage', '.txt'))).outputs['uri']);
    const outcome = await run({
      ...common,
      id: 'local',
      type: TASK_TYPES.LocalFiles,
      kind: 'LocalFiles',
      inputs: { 'a.txt': 'inline', 'sub/b.txt': source, 'c.log': 'not kept' },
      outputs: ['**.txt'],
    });
    expect(outcome.state).toBe('SUCCESS');
    const uris = outcome.outputs['uris'] as Record<string, string>;
    expect(Object.keys(uris).sort()).toEqual(['a.txt', 'sub/b.txt']);
    expect(await read(uris['a.txt'] ?? '')).toBe('inline');
    expect(await read(uris['sub/b.txt'] ?? '')).toBe('from storage');
  });
});
