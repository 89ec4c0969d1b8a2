import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTROLLER_REGISTRY_TENANT, deregisterController, liveControllers, registerController } from './lib/controller-registry';
import { localFolderStorage } from './lib/local-storage';
import { s3Storage } from './lib/s3-storage';
import { parseStorageUri } from './lib/storage-uri';
import type { InternalStorage } from './lib/storage.port';
import { Readable } from 'node:stream';

// Controller discovery through storage on both stores: what controllers write, workers read.
const folders: string[] = [];
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

const BUCKET = process.env['S3_BUCKET'] ?? 'lanner-storage-contract';

const stores: [string, () => Promise<InternalStorage>][] = [
  [
    'local folder',
    async () => {
      const folder = await mkdtemp(join(tmpdir(), 'lanner-registry-'));
      folders.push(folder);
      return localFolderStorage(folder);
    },
  ],
  [
    'S3-compatible (SeaweedFS)',
    async () => {
      const endpoint = process.env['S3_ENDPOINT'];
      if (!endpoint) throw new Error('S3_ENDPOINT is not set: run `npm run services:up` first');
      const storage = s3Storage({
        bucket: BUCKET,
        endpoint,
        region: process.env['AWS_REGION'] ?? 'us-east-1',
        forcePathStyle: true,
        prefix: `registry-${randomBytes(6).toString('hex')}`,
      });
      await storage.client.send(new CreateBucketCommand({ Bucket: BUCKET })).catch((error: { name?: string }) => {
        if (error.name !== 'BucketAlreadyOwnedByYou' && error.name !== 'BucketAlreadyExists') throw error;
      });
      return storage;
    },
  ],
];

describe.each(stores)('controller registry on %s', (_name, open) => {
  let storage: InternalStorage;
  beforeAll(async () => {
    storage = await open();
  });

  it('lists what controllers registered, drops an expired entry and a deregistered one, and tolerates a stray file', async () => {
    const now = Date.now();
    expect(await liveControllers(storage, now)).toEqual({
      endpoints: [],
      problems: ['no live controller entry in internal storage'],
    });

    await registerController(storage, {
      instanceId: 'controller-a',
      host: '10.0.0.1',
      port: 9090,
      refreshedAt: now,
      expiresAt: now + 30_000,
    });
    await registerController(storage, {
      instanceId: 'controller-b',
      host: '10.0.0.2',
      port: 9090,
      refreshedAt: now,
      expiresAt: now + 5_000,
    });
    expect((await liveControllers(storage, now + 1_000)).endpoints).toEqual([
      { host: '10.0.0.1', port: 9090 },
      { host: '10.0.0.2', port: 9090 },
    ]);
    // b stopped refreshing: its entry no longer counts once it expires.
    expect((await liveControllers(storage, now + 6_000)).endpoints).toEqual([{ host: '10.0.0.1', port: 9090 }]);

    // A file that is not an entry is named among the problems and changes nothing else.
    await storage.put(
      CONTROLLER_REGISTRY_TENANT,
      parseStorageUri('kestra:///lanner/controllers/stray.json'),
      Readable.from(['{']),
    );
    const withStray = await liveControllers(storage, now + 6_000);
    expect(withStray.endpoints).toEqual([{ host: '10.0.0.1', port: 9090 }]);
    expect(withStray.problems).toEqual(['kestra:///lanner/controllers/stray.json: not JSON']);

    // A refresh moves the expiry; a graceful stop removes the entry at once.
    await registerController(storage, {
      instanceId: 'controller-b',
      host: '10.0.0.2',
      port: 9090,
      refreshedAt: now + 6_000,
      expiresAt: now + 36_000,
    });
    expect((await liveControllers(storage, now + 7_000)).endpoints).toHaveLength(2);
    expect(await deregisterController(storage, 'controller-a')).toBe(true);
    expect((await liveControllers(storage, now + 7_000)).endpoints).toEqual([{ host: '10.0.0.2', port: 9090 }]);
  });
});
