import { ExecutorRoleModule } from '@lanner/role-executor';
import { runRole, serverRoleSettings } from '@lanner/runtime';

void runRole('executor', (config) => [
  ExecutorRoleModule.forRoot(serverRoleSettings(config), { timerIntervalMs: config.timerIntervalMs, storage: config.storage }),
]);
