import { DynamicModule, Module } from '@nestjs/common';
import { createInProcessQueue, createKafkaQueue } from '@lanner/queue';
import { applyMigrations, openRepositories, type Repositories } from '@lanner/repository';
import {
  AdapterLeases,
  CommonConfig,
  MaintenanceMode,
  queueProvider,
  REPOSITORIES,
  repositoryProvider,
  RUNTIME_CONFIG,
  ServerRoleSettings,
} from '@lanner/runtime';
import {
  CONTROLLER_SETTINGS,
  ControllerIdentity,
  controllerSettingsFrom,
  type ControllerSettings,
} from './lib/controller-settings';
import { BroadcastFollower } from './lib/broadcast-follower';
import { CLOCK } from './lib/clock';
import { ControllerMetrics } from './lib/controller-metrics';
import { ControllerRegistration } from './lib/controller-registration';
import { FrameRelay } from './lib/frame-relay';
import { JobDispatch } from './lib/job-dispatch';
import { KilledJobs } from './lib/killed-jobs';
import { LedgerReconciler } from './lib/ledger-reconciler';
import { QueueLag } from './lib/queue-lag';
import { systemClock } from './lib/system-clock';
import { WorkerAuthGrpc } from './lib/worker-auth.grpc';
import { WorkerFleet } from './lib/worker-fleet';
import { WorkerGrpcServer } from './lib/worker-grpc.server';
import { WorkerRegistry } from './lib/worker-registry';
import { WorkerStreams } from './lib/worker-streams';

/**
 * The controller role: the gRPC endpoint workers connect to, dispatch from the
 * worker-queue topics onto worker streams within each worker's credit, the
 * durable running-job store, and job progress, results, logs and metrics back
 * to the queue.
 *
 * Only wiring lives here. The adapters are leased from the process's adapter
 * pool, so standalone's roles share one repository and one in-process queue,
 * and they are closed after the HTTP server, queue first. The gRPC server stops
 * before them (beforeApplicationShutdown), so lost jobs can still be reported.
 */
@Module({})
export class ControllerRoleModule {
  /**
   * `controller` defaults to the process config: the controller role's gRPC
   * endpoint and LANNER_ALLOW_ANONYMOUS_WORKERS, or standalone's gRPC endpoint
   * with anonymous workers allowed.
   */
  static forRoot(settings: ServerRoleSettings, controller?: ControllerSettings): DynamicModule {
    return {
      module: ControllerRoleModule,
      providers: [
        AdapterLeases,
        repositoryProvider(settings.database, { openRepositories, applyMigrations }),
        queueProvider(settings.queue, { createKafkaQueue, createInProcessQueue }),
        controller
          ? { provide: CONTROLLER_SETTINGS, useValue: controller }
          : {
              provide: CONTROLLER_SETTINGS,
              inject: [RUNTIME_CONFIG],
              useFactory: (config: CommonConfig) => controllerSettingsFrom(config),
            },
        // The one clock of the role: every provider reads the time through it.
        { provide: CLOCK, useValue: systemClock },
        ControllerIdentity,
        {
          provide: MaintenanceMode,
          inject: [REPOSITORIES, ControllerIdentity],
          useFactory: (repositories: Repositories, identity: ControllerIdentity) =>
            new MaintenanceMode(repositories.maintenance, { follower: `controller ${identity.id}` }),
        },
        WorkerFleet,
        ControllerMetrics,
        QueueLag,
        FrameRelay,
        KilledJobs,
        JobDispatch,
        WorkerAuthGrpc,
        WorkerRegistry,
        WorkerStreams,
        BroadcastFollower,
        WorkerGrpcServer,
        ControllerRegistration,
        LedgerReconciler,
      ],
    };
  }
}
