export { SchedulerRoleModule } from './scheduler-role.module';
export { SchedulerService } from './lib/scheduler.service';
export { ScheduleLoop } from './lib/schedule-loop';
export { schedulerOptions, type SchedulerOptions } from './lib/scheduler-options';
export { TRIGGER_LABEL } from './lib/scheduled-execution';
