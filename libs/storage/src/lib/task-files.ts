import type { Readable } from 'node:stream';
import type { InternalStorage, StoredFile } from './storage.port';
import {
  executionPrefix,
  namespaceFilePath,
  namespaceFilesPrefix,
  isUnder,
  parseStorageUri,
  StorageUriError,
  taskFileUri,
  type StorageUri,
  type TaskRunScope,
} from './storage-uri';

/**
 * What one task run may do with internal storage: store its own files (under its task
 * run's folder) and read files of its namespace (an earlier task's output, a FILE input,
 * a parent namespace's file), always inside its execution's tenant.
 */
export interface TaskFiles {
  /** Stores the task run's file `name` (relative; folders allowed) and gives its URI. */
  upload(name: string, body: Readable): Promise<StoredFile>;
  /** A file's bytes; refused for a URI outside the namespace, `StorageFileNotFound` when missing. */
  open(uri: string): Promise<Readable>;
  /** A file's size, or undefined when there is none (a URI outside the namespace is refused). */
  stat(uri: string): Promise<StoredFile | undefined>;
  /** Deletes a file of the namespace; true when one was there (a URI outside the namespace is refused). */
  delete(uri: string): Promise<boolean>;
  /** The files of the task's namespace (`kestra:///<namespace>/_files/...`), by path relative to that folder. */
  namespaceFiles(): Promise<{ readonly path: string; readonly uri: string }[]>;
  /** Deletes every file of the task run's execution (inputs and every task's files); the URIs deleted. */
  purgeExecution(): Promise<string[]>;
}

export function taskRunFiles(storage: InternalStorage, tenant: string, scope: TaskRunScope): TaskFiles {
  const namespaceRoot: StorageUri = {
    uri: `kestra:///${scope.namespace.split('.').join('/')}`,
    segments: scope.namespace.split('.'),
  };
  const readable = (value: string): StorageUri => {
    const uri = parseStorageUri(value);
    if (!isUnder(uri, namespaceRoot)) {
      throw new StorageUriError(
        `${uri.uri} is outside namespace '${scope.namespace}': a task reads only files of its own namespace`,
      );
    }
    return uri;
  };
  return {
    upload: (name, body) => storage.put(tenant, taskFileUri(scope, name), body),
    open: async (value) => storage.get(tenant, readable(value)),
    stat: async (value) => storage.stat(tenant, readable(value)),
    delete: async (value) => storage.delete(tenant, readable(value)),
    namespaceFiles: async () =>
      (await storage.list(tenant, namespaceFilesPrefix(scope.namespace))).map((file) => ({
        path: namespaceFilePath(scope.namespace, parseStorageUri(file.uri)),
        uri: file.uri,
      })),
    purgeExecution: async () => {
      const prefix = executionPrefix(scope);
      const files = await storage.list(tenant, prefix);
      await storage.deletePrefix(tenant, prefix);
      return files.map((file) => file.uri);
    },
  };
}
