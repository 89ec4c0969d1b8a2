export * from './lib/storage-uri';
export * from './lib/storage.port';
export { localFolderStorage } from './lib/local-storage';
export { s3Storage, type S3StorageOptions } from './lib/s3-storage';
export { createInternalStorage, type StorageConfig } from './lib/create-storage';
export { taskRunFiles, type TaskFiles } from './lib/task-files';
export {
  CONTROLLER_REGISTRY_TENANT,
  deregisterController,
  liveControllers,
  liveRegistrations,
  parseRegistration,
  registerController,
  type ControllerRegistration,
  type LiveControllers,
} from './lib/controller-registry';
