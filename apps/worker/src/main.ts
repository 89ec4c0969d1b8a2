import { WorkerRoleModule, workerRoleSettings } from '@lanner/role-worker';
import { runRole } from '@lanner/runtime';

void runRole('worker', (config) => [WorkerRoleModule.forRoot(workerRoleSettings(config))]);
