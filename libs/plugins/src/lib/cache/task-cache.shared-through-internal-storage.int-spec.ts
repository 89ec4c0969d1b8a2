import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { localFolderStorage, s3Storage, type InternalStorage } from '@lanner/storage';
import { createTaskRunner } from '../task-runners';
import { recordingContext, shellCommandsTask, temporaryFolder } from '../../testing/task-fixtures';
import { runWithCache } from './run-with-cache';
import { storageTaskOutputCache } from './task-output-cache';

// The task output cache in internal storage, on each store (a local folder, and SeaweedFS for
// S3): outputs a task produced on one worker are a cache hit on another worker that uses the
// same store, until the ttl; expired entries are purged.
const root = temporaryFolder('lanner-shared-cache-');
afterAll(() => root.remove());

async function s3(): Promise<InternalStorage> {
  const endpoint = process.env['S3_ENDPOINT'];
  if (!endpoint) throw new Error('S3_ENDPOINT is not set: run `npm run services:up` first');
  const bucket = process.env['S3_BUCKET'] ?? 'lanner-task-cache';
  const storage = s3Storage({
    bucket,
    endpoint,
    region: process.env['AWS_REGION'] ?? 'us-east-1',
    forcePathStyle: true,
    prefix: `task-cache-${randomBytes(6).toString('hex')}`,
  });
  await storage.client.send(new CreateBucketCommand({ Bucket: bucket })).catch((error: { name?: string }) => {
    if (error.name !== 'BucketAlreadyOwnedByYou' && error.name !== 'BucketAlreadyExists') throw error;
  });
  return storage;
}

describe.each([
  [
    'local folder',
    async (): Promise<InternalStorage> => localFolderStorage(join(root.path, `store-${randomBytes(3).toString('hex')}`)),
  ],
  ['S3-compatible (SeaweedFS)', s3],
])('the task output cache on the %s store', (_name, makeStorage) => {
  let storage: InternalStorage;
  beforeAll(async () => {
    storage = await makeStorage();
  });
  const scope = { tenantId: 'main', namespace: 'company.team', flowId: `report-${randomBytes(3).toString('hex')}` };
  const runner = createTaskRunner();
  let clock = new Date('2026-11-30T02:00:00Z');

  /** One worker: its own working directory and its own cache object, on the shared store. */
  function worker(name: string) {
    const workingDirectory = join(root.path, `${name}-${scope.flowId}`);
    mkdirSync(workingDirectory, { recursive: true });
    const cache = storageTaskOutputCache(storage);
    // The same task on both workers: the same key.
    const task = shellCommandsTask(['echo run >> runs.log', 'echo "::{\\"outputs\\":{\\"n\\":1}}::"'], {
      taskCache: { enabled: true, ttlMs: 60 * 60 * 1000 },
    });
    return {
      cache,
      runs: () => readFileSync(join(workingDirectory, 'runs.log'), 'utf8').trim().split('\n').length,
      run: () =>
        runWithCache({
          runner,
          cache,
          task,
          context: recordingContext({ workingDirectory, now: () => clock }).context,
          scope,
        }),
    };
  }

  it("answers one worker's outputs to another until the ttl, then runs again", async () => {
    const first = worker('a');
    const second = worker('b');

    const ran = await first.run();
    expect(ran).toMatchObject({ state: 'SUCCESS', cacheHit: false, outputs: { vars: { n: 1 } } });
    const hit = await second.run();
    expect(hit).toMatchObject({ state: 'SUCCESS', cacheHit: true, outputs: { vars: { n: 1 } } });
    expect(first.runs()).toBe(1);

    clock = new Date('2026-11-30T03:00:00Z');
    expect(await second.run()).toMatchObject({ cacheHit: false });
    expect(second.runs()).toBe(1);
  });

  it('purges expired entries', async () => {
    clock = new Date('2026-12-01T00:00:00Z');
    expect(await storageTaskOutputCache(storage).purgeExpired(clock)).toBe(1);
    expect(await storageTaskOutputCache(storage).purgeExpired(clock)).toBe(0);
  });
});
