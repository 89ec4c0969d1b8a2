import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import type { RunnableTask } from '@lanner/model';
import { parseStorageUri, type InternalStorage, type StorageUri } from '@lanner/storage';
import { canonicalJson, type JsonObject } from '../json';

/** Which flow a task belongs to: two flows (or tenants) never share cached outputs. */
export interface TaskCacheScope {
  readonly tenantId?: string;
  readonly namespace: string;
  readonly flowId: string;
}

export interface TaskOutputCache {
  /** The key of a task as the worker received it (before secrets are resolved). */
  keyFor(task: RunnableTask, scope: TaskCacheScope): string;
  /** The cached outputs, or undefined when there are none or they expired at `now`. */
  read(key: string, now: Date): Promise<JsonObject | undefined>;
  /** Stores outputs until `now + ttlMs`; with `ttlMs` undefined the entry never expires. */
  write(key: string, outputs: JsonObject, now: Date, ttlMs: number | undefined): Promise<void>;
  /** Removes the entries expired at `now`; returns how many. */
  purgeExpired(now: Date): Promise<number>;
}

/** The folder under the internal-storage folder that holds the cache. */
export const TASK_CACHE_FOLDER = 'task-cache';
const FORMAT_VERSION = 1;

interface CacheEntry {
  readonly version: number;
  readonly storedAt: string;
  /** null: never expires (the task gave no ttl). */
  readonly expiresAt: string | null;
  readonly outputs: JsonObject;
}

/**
 * The task output cache on the worker's internal storage: one JSON file per key in
 * `<storageDir>/task-cache/`, written atomically (temp file, then rename), so a
 * reader sees a whole entry or none. The key is a SHA-256 over the flow scope and
 * the task definition as it reached the worker: rendered, except for its
 * `{{ secret() }}` segments, so secret values never enter a key (and a rotated
 * secret does not invalidate an entry; disable the cache on tasks whose outputs
 * depend on a secret's value). `taskCache` itself is left out, so changing a ttl
 * keeps the entry.
 */
export function createTaskOutputCache(storageDir: string): TaskOutputCache {
  const folder = join(storageDir, TASK_CACHE_FOLDER);
  const fileOf = (key: string) => {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new Error('a task cache key is a SHA-256 in hex');
    return join(folder, `${key}.json`);
  };

  return {
    keyFor: cacheKey,

    async read(key, now) {
      const entry = await readEntry(fileOf(key));
      if (entry === undefined) return undefined;
      if (isExpired(entry, now)) {
        await rm(fileOf(key), { force: true });
        return undefined;
      }
      return entry.outputs;
    },

    async write(key, outputs, now, ttlMs) {
      await mkdir(folder, { recursive: true });
      const entry = newEntry(outputs, now, ttlMs);
      const temporary = join(folder, `.${key}.${randomUUID()}.tmp`);
      await writeFile(temporary, JSON.stringify(entry), { mode: 0o600 });
      await rename(temporary, fileOf(key));
    },

    async purgeExpired(now) {
      const names = await readdir(folder).catch(() => [] as string[]);
      let removed = 0;
      for (const name of names.filter((n) => n.endsWith('.json'))) {
        const entry = await readEntry(join(folder, name));
        if (entry === undefined || isExpired(entry, now)) {
          await rm(join(folder, name), { force: true });
          removed += 1;
        }
      }
      return removed;
    },
  };
}

function cacheKey(task: RunnableTask, scope: TaskCacheScope): string {
  const { taskCache: _settings, ...definition } = task;
  const scoped = {
    version: FORMAT_VERSION,
    tenantId: scope.tenantId ?? null,
    namespace: scope.namespace,
    flowId: scope.flowId,
    task: definition,
  };
  return createHash('sha256').update(canonicalJson(scoped)).digest('hex');
}

function newEntry(outputs: JsonObject, now: Date, ttlMs: number | undefined): CacheEntry {
  return {
    version: FORMAT_VERSION,
    storedAt: now.toISOString(),
    expiresAt: ttlMs === undefined ? null : new Date(now.getTime() + ttlMs).toISOString(),
    outputs,
  };
}

/** The storage space the shared cache lives in: no tenant can be named so (as the controller registry). */
export const TASK_CACHE_STORAGE_TENANT = 'instance';
const CACHE_PREFIX = 'kestra:///lanner/task-cache';

/**
 * The task output cache in internal storage, shared by every worker that uses the same
 * store: one JSON entry per key at `kestra:///lanner/task-cache/<key>.json` in the
 * `instance` storage space (the key already holds the tenant, namespace and flow). Same
 * keys and entries as the folder cache; a store's put is whole or nothing.
 */
export function storageTaskOutputCache(storage: InternalStorage): TaskOutputCache {
  const uriOf = (key: string): StorageUri => {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new Error('a task cache key is a SHA-256 in hex');
    return parseStorageUri(`${CACHE_PREFIX}/${key}.json`);
  };
  const readStored = async (uri: StorageUri): Promise<CacheEntry | undefined> => {
    try {
      return entryOf(await text(await storage.get(TASK_CACHE_STORAGE_TENANT, uri)));
    } catch {
      return undefined;
    }
  };
  return {
    keyFor: cacheKey,
    async read(key, now) {
      const entry = await readStored(uriOf(key));
      if (entry === undefined) return undefined;
      if (isExpired(entry, now)) {
        await storage.delete(TASK_CACHE_STORAGE_TENANT, uriOf(key)).catch(() => undefined);
        return undefined;
      }
      return entry.outputs;
    },
    async write(key, outputs, now, ttlMs) {
      const body = Readable.from([Buffer.from(JSON.stringify(newEntry(outputs, now, ttlMs)))]);
      await storage.put(TASK_CACHE_STORAGE_TENANT, uriOf(key), body);
    },
    async purgeExpired(now) {
      let removed = 0;
      for (const file of await storage.list(TASK_CACHE_STORAGE_TENANT, parseStorageUri(CACHE_PREFIX))) {
        const uri = parseStorageUri(file.uri);
        const entry = await readStored(uri);
        if (entry === undefined || isExpired(entry, now)) {
          await storage.delete(TASK_CACHE_STORAGE_TENANT, uri);
          removed += 1;
        }
      }
      return removed;
    },
  };
}

/** An unreadable or foreign file is a miss, never an error: the task simply runs. */
async function readEntry(file: string): Promise<CacheEntry | undefined> {
  try {
    return entryOf(await readFile(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function entryOf(content: string): CacheEntry | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object') return undefined;
  const entry = parsed as Partial<CacheEntry>;
  if (entry.version !== FORMAT_VERSION || entry.outputs === null || typeof entry.outputs !== 'object') return undefined;
  if (entry.expiresAt !== null && typeof entry.expiresAt !== 'string') return undefined;
  return entry as CacheEntry;
}

function isExpired(entry: CacheEntry, now: Date): boolean {
  return entry.expiresAt !== null && Date.parse(entry.expiresAt) <= now.getTime();
}
