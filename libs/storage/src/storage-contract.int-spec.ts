import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localFolderStorage } from './lib/local-storage';
import { s3Storage } from './lib/s3-storage';
import { taskFileUri } from './lib/storage-uri';
import { describeStorageContract } from './testing/storage-contract';

const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

describeStorageContract('local folder', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'lanner-storage-'));
  folders.push(folder);
  return localFolderStorage(folder);
});

/**
 * The S3 adapter against the S3-compatible server the dev services start (SeaweedFS),
 * credentials from the SDK's default chain (the AWS_* variables int-env.js fills).
 * Every test writes under a key prefix of its own in one bucket.
 */
const BUCKET = process.env['S3_BUCKET'] ?? 'lanner-storage-contract';
let bucketReady: Promise<void> | undefined;
describeStorageContract('S3-compatible (SeaweedFS)', async () => {
  const endpoint = process.env['S3_ENDPOINT'];
  if (!endpoint) throw new Error('S3_ENDPOINT is not set: run `npm run services:up` first');
  const storage = s3Storage({
    bucket: BUCKET,
    endpoint,
    region: process.env['AWS_REGION'] ?? 'us-east-1',
    forcePathStyle: true,
    prefix: `contract-${randomBytes(6).toString('hex')}`,
    // A small part size, so the 24 MiB file goes up as a multipart upload.
    partSizeBytes: 5 * 1024 * 1024,
  });
  bucketReady ??= storage.client.send(new CreateBucketCommand({ Bucket: BUCKET })).then(
    () => undefined,
    (error: { name?: string }) => {
      if (error.name !== 'BucketAlreadyOwnedByYou' && error.name !== 'BucketAlreadyExists') throw error;
    },
  );
  await bucketReady;
  return storage;
});

describe('S3 adapter against SeaweedFS: credentials', () => {
  it('is refused with a wrong secret, and the error does not show it', async () => {
    const storage = s3Storage({
      bucket: BUCKET,
      endpoint: process.env['S3_ENDPOINT'] ?? '',
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: process.env['AWS_ACCESS_KEY_ID'] ?? 'lanner', secretAccessKey: 'not-the-secret-at-all' },
    });
    const uri = taskFileUri({ namespace: 'a', flowId: 'f', executionId: 'e', taskId: 't', taskRunId: 'r' }, 'x.txt');
    const refused = await storage.put('main', uri, Readable.from([Buffer.from('x')])).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(refused).toBeInstanceOf(Error);
    expect(String(refused?.message)).not.toContain('not-the-secret-at-all');
    expect(await storage.stat('main', uri).catch(() => 'refused')).toBe('refused');
  });
});
