export { SchedulerRoleModule } from './scheduler-role.module';
