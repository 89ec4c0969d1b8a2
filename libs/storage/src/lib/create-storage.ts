import { localFolderStorage } from './local-storage';
import { s3Storage, type S3StorageOptions } from './s3-storage';
import type { InternalStorage } from './storage.port';

/** Which store holds internal storage, as the configuration gives it. */
export type StorageConfig = { readonly kind: 'local'; readonly root: string } | ({ readonly kind: 's3' } & S3StorageOptions);

export function createInternalStorage(config: StorageConfig): InternalStorage {
  return config.kind === 'local' ? localFolderStorage(config.root) : s3Storage(config);
}
