import { IndexerRoleModule } from '@lanner/role-indexer';
import { runRole, serverRoleSettings } from '@lanner/runtime';

void runRole('indexer', (config) => [IndexerRoleModule.forRoot(serverRoleSettings(config))]);
