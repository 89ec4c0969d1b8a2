import { ApiRoleModule } from '@lanner/role-api';
import { ControllerRoleModule } from '@lanner/role-controller';
import { ExecutorRoleModule } from '@lanner/role-executor';
import { IndexerRoleModule } from '@lanner/role-indexer';
import { SchedulerRoleModule } from '@lanner/role-scheduler';
import { WorkerRoleModule } from '@lanner/role-worker';
import { runRole, startEmbeddedServices } from '@lanner/runtime';

// Every role in one process and one HTTP server, on embedded PostgreSQL and the in-process queue.
void runRole('standalone', async (config, roleProcess) => {
  const { serverRoles } = await startEmbeddedServices(config, roleProcess);
  return [
    ApiRoleModule.forRoot(serverRoles),
    ExecutorRoleModule.forRoot(serverRoles),
    ControllerRoleModule.forRoot(serverRoles),
    SchedulerRoleModule.forRoot(serverRoles),
    IndexerRoleModule.forRoot(serverRoles),
    WorkerRoleModule.forRoot({ controllers: [] }),
  ];
});
