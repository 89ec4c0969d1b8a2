import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import { byteCounter } from './byte-limit';
import type { InternalStorage, PutOptions, StoredFile } from './storage.port';
import { StorageFileNotFound } from './storage.port';
import { checkTenant, parseStorageUri, type StorageUri } from './storage-uri';

export interface S3StorageOptions {
  readonly bucket: string;
  /** A custom endpoint (SeaweedFS, MinIO, a cloud's S3 gateway); absent: AWS's own. */
  readonly endpoint?: string;
  readonly region: string;
  /** Path-style addressing (`<endpoint>/<bucket>/<key>`), which most S3-compatible servers need. */
  readonly forcePathStyle: boolean;
  /** Keys start with this (no leading or trailing slash); empty: the bucket's root. */
  readonly prefix?: string;
  /** Explicit credentials; absent: the SDK's default chain (AWS_ACCESS_KEY_ID..., profiles, instance roles). */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string; readonly sessionToken?: string };
  /** Multipart part size for uploads; default 5 MiB, the least S3 accepts (the memory a large upload holds per part in flight). */
  readonly partSizeBytes?: number;
}

const DEFAULT_PART_SIZE = 5 * 1024 * 1024;
const UPLOAD_QUEUE = 2;

/**
 * Internal storage in an S3-compatible bucket through the AWS SDK v3: the object key is
 * `<prefix>/<tenant>/<uri path>`. Uploads stream in parts (at most `UPLOAD_QUEUE` parts
 * in memory), downloads stream the body as it comes.
 */
export function s3Storage(options: S3StorageOptions): InternalStorage & { readonly client: S3Client } {
  const config: S3ClientConfig = {
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    // Checksums only when an operation requires one: S3-compatible servers differ in what they accept.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
  const client = new S3Client(config);
  const bucket = options.bucket;
  const root = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
  const tenantRoot = (tenant: string): string => (root ? `${root}/` : '') + `${checkTenant(tenant)}/`;
  const keyOf = (tenant: string, uri: StorageUri): string => tenantRoot(tenant) + uri.segments.join('/');

  async function listKeys(tenant: string, prefix: StorageUri): Promise<{ key: string; size: number }[]> {
    const keyPrefix = `${keyOf(tenant, prefix)}/`;
    const found: { key: string; size: number }[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: keyPrefix, ContinuationToken: token }));
      for (const object of page.Contents ?? []) {
        if (object.Key) found.push({ key: object.Key, size: object.Size ?? 0 });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return found;
  }

  function uriOfKey(tenant: string, key: string): StorageUri {
    const path = key.slice(tenantRoot(tenant).length);
    return parseStorageUri(`kestra:///${path.split('/').map(encodeURIComponent).join('/')}`);
  }

  return {
    client,

    async put(tenant: string, uri: StorageUri, body: Readable, putOptions: PutOptions = {}): Promise<StoredFile> {
      const counter = byteCounter(putOptions.maxBytes);
      const source = body.pipe(counter);
      body.on('error', (error) => counter.destroy(error));
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: keyOf(tenant, uri), Body: source },
        partSize: options.partSizeBytes ?? DEFAULT_PART_SIZE,
        queueSize: UPLOAD_QUEUE,
        leavePartsOnError: false,
      });
      const abort = (): void => void upload.abort().catch(() => undefined);
      putOptions.signal?.addEventListener('abort', abort, { once: true });
      // A failing source (too large, a broken client upload) aborts the upload: no object is left.
      let sourceError: unknown;
      counter.once('error', (error) => {
        sourceError = error;
        abort();
      });
      try {
        await upload.done();
      } catch (error) {
        throw sourceError ?? error;
      } finally {
        putOptions.signal?.removeEventListener('abort', abort);
      }
      if (sourceError) throw sourceError;
      return { uri: uri.uri, size: counter.bytes() };
    },

    async get(tenant: string, uri: StorageUri): Promise<Readable> {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(tenant, uri) }));
        if (!(object.Body instanceof Readable)) throw new Error('the S3 client gave a body that is not a Node stream');
        return object.Body;
      } catch (error) {
        if (isNotFound(error)) throw new StorageFileNotFound(uri.uri);
        throw error;
      }
    },

    async stat(tenant: string, uri: StorageUri): Promise<StoredFile | undefined> {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: keyOf(tenant, uri) }));
        return { uri: uri.uri, size: head.ContentLength ?? 0 };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },

    async delete(tenant: string, uri: StorageUri): Promise<boolean> {
      // S3 deletes answer the same whether the object was there: ask first.
      const there = await this.stat(tenant, uri);
      if (!there) return false;
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOf(tenant, uri) }));
      return true;
    },

    async list(tenant: string, prefix: StorageUri): Promise<StoredFile[]> {
      const keys = await listKeys(tenant, prefix);
      return keys
        .map(({ key, size }) => ({ uri: uriOfKey(tenant, key).uri, size }))
        .sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
    },

    async deletePrefix(tenant: string, prefix: StorageUri): Promise<number> {
      const keys = await listKeys(tenant, prefix);
      for (let start = 0; start < keys.length; start += 1000) {
        const batch = keys.slice(start, start + 1000);
        await client.send(
          new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch.map(({ key }) => ({ Key: key })), Quiet: true } }),
        );
      }
      return keys.length;
    },
  };
}

function isNotFound(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return name === 'NoSuchKey' || name === 'NotFound' || $metadata?.httpStatusCode === 404;
}
