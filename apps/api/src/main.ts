import { ApiRoleModule } from '@lanner/role-api';
import { IndexerRoleModule } from '@lanner/role-indexer';
import { runRole, serverRoleSettings } from '@lanner/runtime';

// The indexer runs inside the api process unless it is deployed on its own (`--no-indexer`).
void runRole('api', (config) => {
  const settings = serverRoleSettings(config);
  const api = ApiRoleModule.forRoot(settings, {
    adminToken: config.adminToken,
    setupFile: config.setupFile,
    storage: config.storage,
    fileInputMaxBytes: config.fileInputMaxBytes,
    storageRetentionDays: config.storageRetentionDays,
    users: { signingKey: config.userSigningKey, ...config.userLogin },
  });
  return config.embeddedIndexer ? [api, IndexerRoleModule.forRoot(settings)] : [api];
});
