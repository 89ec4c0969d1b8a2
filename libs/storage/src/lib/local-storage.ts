import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, rmdir, stat, unlink } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { byteCounter } from './byte-limit';
import type { InternalStorage, PutOptions, StoredFile } from './storage.port';
import { StorageFileNotFound } from './storage.port';
import { checkTenant, parseStorageUri, type StorageUri } from './storage-uri';

/** Files being written carry this suffix until they are renamed into place; `list` skips them. */
const PARTIAL_SUFFIX = '.lanner-partial';

/**
 * Internal storage in a local folder: `<root>/<tenant>/<uri path>`. A file is written
 * beside its final name and renamed into place, so a reader sees all of it or nothing.
 * Standalone's default; one host only (workers on other hosts cannot see it).
 */
export function localFolderStorage(root: string): InternalStorage {
  const pathOf = (tenant: string, uri: StorageUri): string => join(root, checkTenant(tenant), ...uri.segments);

  async function statFile(tenant: string, uri: StorageUri): Promise<StoredFile | undefined> {
    const found = await stat(pathOf(tenant, uri)).catch(() => undefined);
    return found?.isFile() ? { uri: uri.uri, size: found.size } : undefined;
  }

  /** Removes empty folders from `folder` up to (not including) the tenant folder. */
  async function pruneEmpty(tenant: string, folder: string): Promise<void> {
    const stop = join(root, tenant);
    let current = folder;
    while (current.startsWith(stop + sep)) {
      const removed = await rmdir(current).then(
        () => true,
        () => false,
      );
      if (!removed) return;
      current = dirname(current);
    }
  }

  async function walk(folder: string, found: string[]): Promise<void> {
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await walk(path, found);
      else if (entry.isFile() && !entry.name.endsWith(PARTIAL_SUFFIX)) found.push(path);
    }
  }

  return {
    async put(tenant: string, uri: StorageUri, body: Readable, options: PutOptions = {}): Promise<StoredFile> {
      const target = pathOf(tenant, uri);
      await mkdir(dirname(target), { recursive: true });
      const partial = `${target}.${randomBytes(6).toString('hex')}${PARTIAL_SUFFIX}`;
      const counter = byteCounter(options.maxBytes);
      try {
        await pipeline(body, counter, createWriteStream(partial, { mode: 0o600 }), { signal: options.signal });
        await rename(partial, target);
      } catch (error) {
        await unlink(partial).catch(() => undefined);
        throw error;
      }
      return { uri: uri.uri, size: counter.bytes() };
    },

    async get(tenant: string, uri: StorageUri): Promise<Readable> {
      // Opened before it is handed out, so a missing file is an error of `get`, not of the stream.
      const handle = await open(pathOf(tenant, uri), 'r').catch(() => undefined);
      if (!handle) throw new StorageFileNotFound(uri.uri);
      const info = await handle.stat();
      if (!info.isFile()) {
        await handle.close();
        throw new StorageFileNotFound(uri.uri);
      }
      return handle.createReadStream();
    },

    stat: statFile,

    async delete(tenant: string, uri: StorageUri): Promise<boolean> {
      const path = pathOf(tenant, uri);
      const removed = await unlink(path).then(
        () => true,
        () => false,
      );
      if (removed) await pruneEmpty(tenant, dirname(path));
      return removed;
    },

    async list(tenant: string, prefix: StorageUri): Promise<StoredFile[]> {
      const base = pathOf(tenant, prefix);
      const paths: string[] = [];
      await walk(base, paths);
      const files = await Promise.all(
        paths.map(async (path) => {
          const segments = relative(join(root, tenant), path).split(sep);
          const uri = parseStorageUri(`kestra:///${segments.map(encodeURIComponent).join('/')}`);
          return statFile(tenant, uri);
        }),
      );
      return files
        .filter((file): file is StoredFile => file !== undefined)
        .sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
    },

    async deletePrefix(tenant: string, prefix: StorageUri): Promise<number> {
      const base = pathOf(tenant, prefix);
      const paths: string[] = [];
      await walk(base, paths);
      await rm(base, { recursive: true, force: true });
      await pruneEmpty(tenant, dirname(base));
      return paths.length;
    },
  };
}
