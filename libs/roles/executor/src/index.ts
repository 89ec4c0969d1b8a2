export { ExecutorRoleModule } from './executor-role.module';
