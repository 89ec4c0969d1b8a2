import { SchedulerRoleModule } from '@lanner/role-scheduler';
import { runRole, serverRoleSettings } from '@lanner/runtime';

void runRole('scheduler', (config) => [
  SchedulerRoleModule.forRoot(serverRoleSettings(config), {
    backfillPerSecond: config.backfillPerSecond,
    aheadMs: config.schedulerAheadMs,
  }),
]);
