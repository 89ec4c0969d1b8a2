import { ApiRoleModule } from '@lanner/role-api';
import { runRole, serverRoleSettings } from '@lanner/runtime';

void runRole('api', (config) => [ApiRoleModule.forRoot(serverRoleSettings(config), { adminToken: config.adminToken })]);
