import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ExecutionRecordState } from '@lanner/model';
import {
  createInternalStorage,
  executionPrefix,
  inputFileUri,
  s3Storage,
  type InternalStorage,
  type StorageConfig,
  taskFileUri,
} from '@lanner/storage';
import { startApiForSpec, type ApiSpecFixture } from '../testing/api-spec-fixture';
import { StorageRetention } from './execution-files.service';

// An execution's files purged with it, on each store (a local folder, and SeaweedFS for S3):
// DELETE /executions/{id}/files purges an ended execution's files, and the retention
// (LANNER_STORAGE_RETENTION_DAYS, 7 here) purges those of executions that ended longer ago,
// leaving recent and running ones alone.
const DAY = 24 * 60 * 60 * 1000;

async function s3Config(): Promise<StorageConfig> {
  const endpoint = process.env['S3_ENDPOINT'];
  if (!endpoint) throw new Error('S3_ENDPOINT is not set: run `npm run services:up` first');
  const options = {
    bucket: process.env['S3_BUCKET'] ?? 'lanner-retention',
    endpoint,
    region: process.env['AWS_REGION'] ?? 'us-east-1',
    forcePathStyle: true,
    prefix: `retention-${randomBytes(6).toString('hex')}`,
  };
  await s3Storage(options)
    .client.send(new CreateBucketCommand({ Bucket: options.bucket }))
    .catch((error: { name?: string }) => {
      if (error.name !== 'BucketAlreadyOwnedByYou' && error.name !== 'BucketAlreadyExists') throw error;
    });
  return { kind: 's3', ...options };
}

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'lanner-retention-'));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

describe.each([
  ['local folder', async (): Promise<StorageConfig> => ({ kind: 'local', root: folder })],
  ['S3-compatible (SeaweedFS)', s3Config],
])("an execution's files on the %s store", (_name, configOf) => {
  let api: ApiSpecFixture;
  let storage: InternalStorage;
  const namespace = 'company.retention';
  const flowId = 'keep';

  beforeAll(async () => {
    const config = await configOf();
    storage = createInternalStorage(config);
    api = await startApiForSpec({ storage: config, storageRetentionDays: 7, storageRetentionSweepMs: 3_600_000 });
  }, 120_000);
  afterAll(() => api?.close());

  /** An execution in `state` that ended `endedDaysAgo` days ago (null: not ended), with two files. */
  async function execution(state: ExecutionRecordState, endedDaysAgo: number | null): Promise<{ id: string; uris: string[] }> {
    const id = randomUUID();
    const created = await api.repositories.executions.create('main', {
      id,
      namespace,
      flowId,
      flowRevision: 1,
      state,
      stateHistories: [{ state, date: new Date() }],
    });
    if (endedDaysAgo !== null) {
      await api.repositories.executions.update('main', id, created.version, {
        endedAt: new Date(Date.now() - endedDaysAgo * DAY),
      });
    }
    const scope = { namespace, flowId, executionId: id };
    const uris: string[] = [];
    for (const uri of [
      inputFileUri(scope, 'data', 'in.csv'),
      taskFileUri({ ...scope, taskId: 't', taskRunId: 'r' }, 'out.csv'),
    ]) {
      uris.push((await storage.put('main', uri, Readable.from([Buffer.from('a,b')]))).uri);
    }
    return { id, uris: uris.sort() };
  }
  const filesOf = async (id: string) =>
    (await storage.list('main', executionPrefix({ namespace, flowId, executionId: id }))).map((file) => file.uri);
  const purge = (id: string, tenant = 'main') =>
    fetch(`${api.baseUrl}/api/v1/${tenant}/executions/${id}/files`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${api.adminToken}` },
    });

  it('the retention purges the files of executions that ended more than its days ago, and only those', async () => {
    const old = await execution('SUCCESS', 10);
    const recent = await execution('FAILED', 1);
    const running = await execution('RUNNING', null);
    const retention = api.app.get(StorageRetention);

    expect(await retention.sweep(new Date())).toBe(1);
    expect(await filesOf(old.id)).toEqual([]);
    expect(await filesOf(recent.id)).toEqual(recent.uris);
    expect(await filesOf(running.id)).toEqual(running.uris);
    // Purged once: the next sweep has nothing to do.
    expect(await retention.sweep(new Date())).toBe(0);
    // A week later the recent one is past it too; the running one never is.
    expect(await retention.sweep(new Date(Date.now() + 7 * DAY))).toBe(1);
    expect(await filesOf(recent.id)).toEqual([]);
    expect(await filesOf(running.id)).toEqual(running.uris);
  });

  it('DELETE /executions/{id}/files purges an ended execution and answers the URIs it deleted', async () => {
    const ended = await execution('SUCCESS', 0);
    const answer = await purge(ended.id);
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { uris: string[] }).uris.sort()).toEqual(ended.uris);
    expect(await filesOf(ended.id)).toEqual([]);
  });

  it('refuses to purge a running execution (409) and another tenant cannot reach it (404)', async () => {
    const running = await execution('RUNNING', null);
    const refused = await purge(running.id);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { detail: string }).detail).toBe(
      `Execution '${running.id}' has not ended (RUNNING): its tasks may still use its files`,
    );
    const ended = await execution('SUCCESS', 0);
    expect((await purge(ended.id, 'other')).status).toBe(404);
    expect(await filesOf(running.id)).toEqual(running.uris);
    expect(await filesOf(ended.id)).toEqual(ended.uris);
  });
});
