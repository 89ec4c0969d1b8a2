export { WorkerRoleModule } from './worker-role.module';
export { workerRoleSettings } from './worker-role.settings';
export type { WorkerRoleSettings } from './worker-role.settings';
