export { ExecutorRoleModule } from './executor-role.module';
export { ExecutorService } from './lib/executor.service';
export { executorOptions, executorTopics, EXECUTOR_GROUP_ID, systemWorkerGroupId } from './lib/executor-options';
export { SYSTEM_WORKER_ID, SystemWorker } from './lib/system-worker';
export { notASystemTaskMessage, SYSTEM_WORKER_KINDS } from './lib/system-worker-tasks';
export type { ExecutorOptions, ExecutorTopics } from './lib/executor-options';
