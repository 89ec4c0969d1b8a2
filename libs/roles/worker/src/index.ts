export { WorkerRoleModule } from './worker-role.module';
export { DEFAULT_DRAIN_GRACE_MS, workerRoleSettings } from './worker-role.settings';
export type { WorkerRoleSettings } from './worker-role.settings';
export { EXIT_CREDENTIALS_REFUSED } from './worker-agent.factory';
