export { ExecutorRoleModule } from './executor-role.module';
export { ExecutorService } from './lib/executor.service';
export { executorOptions, executorTopics, EXECUTOR_GROUP_ID } from './lib/executor-options';
export type { ExecutorOptions, ExecutorTopics } from './lib/executor-options';
