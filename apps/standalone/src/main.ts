import { join } from 'node:path';
import { ApiRoleModule } from '@lanner/role-api';
import { ControllerRoleModule, DEFAULT_STREAM_RECYCLE_AGE_S } from '@lanner/role-controller';
import { ExecutorRoleModule } from '@lanner/role-executor';
import { IndexerRoleModule } from '@lanner/role-indexer';
import { SchedulerRoleModule } from '@lanner/role-scheduler';
import { DEFAULT_DRAIN_GRACE_MS, WorkerRoleModule } from '@lanner/role-worker';
import { runRole, startEmbeddedServices } from '@lanner/runtime';

// Every role in one process and one HTTP server, on embedded PostgreSQL and the in-process queue.
// The local worker reaches the controller over real gRPC on loopback, as a remote worker would.
void runRole('standalone', async (config, roleProcess) => {
  const { serverRoles, adminToken, grpc, workerSigningKey, userSigningKey, firstAdmin } = await startEmbeddedServices(
    config,
    roleProcess,
  );
  return [
    ApiRoleModule.forRoot(serverRoles, {
      adminToken,
      setupFile: config.setupFile,
      storage: config.storage,
      fileInputMaxBytes: config.fileInputMaxBytes,
      storageRetentionDays: config.storageRetentionDays,
      users: { signingKey: userSigningKey, firstAdmin, ...config.userLogin },
    }),
    ExecutorRoleModule.forRoot(serverRoles, { timerIntervalMs: config.timerIntervalMs, storage: config.storage }),
    ControllerRoleModule.forRoot(serverRoles, {
      grpc: grpc.listen,
      allowAnonymousWorkers: true,
      workerAuth: { signingKey: workerSigningKey, ...config.workerTokenTtl },
      streamRecycleAgeS: DEFAULT_STREAM_RECYCLE_AGE_S,
    }),
    SchedulerRoleModule.forRoot(serverRoles, {
      backfillPerSecond: config.backfillPerSecond,
      aheadMs: config.schedulerAheadMs,
    }),
    IndexerRoleModule.forRoot(serverRoles),
    WorkerRoleModule.forRoot(
      {
        controllers: [grpc.connect],
        slots: config.workerSlots,
        name: 'standalone',
        dataDir: join(config.dataDir, 'worker'),
        storage: config.storage,
        outputInlineMaxBytes: config.outputInlineMaxBytes,
        drainGraceMs: DEFAULT_DRAIN_GRACE_MS,
      },
      // Its own event loop, so its share of the work runs on the second core (docs/BENCHMARKS.md).
      { onOwnThread: true },
    ),
  ];
});
