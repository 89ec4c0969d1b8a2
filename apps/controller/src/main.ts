import { ControllerRoleModule } from '@lanner/role-controller';
import { runRole, serverRoleSettings } from '@lanner/runtime';

void runRole('controller', (config) => [ControllerRoleModule.forRoot(serverRoleSettings(config))]);
