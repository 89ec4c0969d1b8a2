import type { Readable } from 'node:stream';
import type { StorageUri } from './storage-uri';

/** What a store knows of one file. */
export interface StoredFile {
  readonly uri: string;
  readonly size: number;
}

export interface PutOptions {
  /** Refuse a body longer than this many bytes (`StorageFileTooLarge`); nothing is kept then. */
  readonly maxBytes?: number;
  readonly signal?: AbortSignal;
}

/** No file at that URI in that tenant. */
export class StorageFileNotFound extends Error {
  constructor(readonly uri: string) {
    super(`file ${uri} does not exist in internal storage`);
    this.name = 'StorageFileNotFound';
  }
}

/** A body went over `PutOptions.maxBytes`. */
export class StorageFileTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the file is larger than the limit of ${maxBytes} bytes`);
    this.name = 'StorageFileTooLarge';
  }
}

/**
 * Internal storage: files by URI, per tenant, streamed both ways (no call holds a whole
 * file in memory). A tenant's files are out of every other tenant's reach: the tenant
 * is part of where a file lives, never of its URI.
 */
export interface InternalStorage {
  /** Stores `body` at `uri`, replacing what was there; the file appears whole or not at all. */
  put(tenant: string, uri: StorageUri, body: Readable, options?: PutOptions): Promise<StoredFile>;
  /** The file's bytes as a stream; `StorageFileNotFound` when there is none. */
  get(tenant: string, uri: StorageUri): Promise<Readable>;
  /** The file's size, or undefined when there is none. */
  stat(tenant: string, uri: StorageUri): Promise<StoredFile | undefined>;
  /** True when a file was there and is now gone. */
  delete(tenant: string, uri: StorageUri): Promise<boolean>;
  /** Every file below `prefix`, in URI order. */
  list(tenant: string, prefix: StorageUri): Promise<StoredFile[]>;
  /** Deletes every file below `prefix`; how many were deleted. */
  deletePrefix(tenant: string, prefix: StorageUri): Promise<number>;
}
