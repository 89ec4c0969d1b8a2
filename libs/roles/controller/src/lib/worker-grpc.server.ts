import * as grpc from '@grpc/grpc-js';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import {
  DEFAULT_TOPIC_PARTITIONS,
  frameSizeChannelOptions,
  spineTopics,
  QueueTopics,
  WorkerAuthServiceService,
  WorkerControllerServiceService,
  type WorkerControllerServiceServer,
} from '@lanner/frames';
import { RESERVED_WORKER_QUEUE_IDS } from '@lanner/model';
import type { QueuePort, QueueSubscription } from '@lanner/queue';
import { MaintenanceMode, QUEUE } from '@lanner/runtime';
import { BroadcastFollower } from './broadcast-follower';
import { CONTROLLER_SETTINGS, ControllerIdentity, type ControllerSettings } from './controller-settings';
import { grpcServerCredentials, GrpcTlsSetupError } from './grpc-credentials';
import { JobDispatch } from './job-dispatch';
import { WorkerAuthGrpc } from './worker-auth.grpc';
import { WorkerRegistry } from './worker-registry';
import { WorkerStreams } from './worker-streams';

const QUEUE_SETUP_RETRY_MS = 5_000;
/** How long open streams get to finish after the controller asked them to go. */
const SHUTDOWN_GRACE_MS = 5_000;

/**
 * The gRPC server workers connect to (`WorkerControllerService.Connect` and
 * `WorkerAuthService`, plaintext or TLS/mTLS from `LANNER_GRPC_TLS_*`),
 * started with the application and stopped before the queue and repository
 * close, and the subscription to `lanner.broadcast` (its own consumer group per
 * controller process, so every controller sees every broadcast).
 */
@Injectable()
export class WorkerGrpcServer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WorkerGrpcServer.name);
  private readonly server = new grpc.Server(frameSizeChannelOptions());
  private broadcasts: QueueSubscription | undefined;
  private readonly stopping = new AbortController();
  private queueSetup: Promise<void> = Promise.resolve();
  private onListening: (port: number) => void = () => undefined;
  /** The port the gRPC server listens on, once it is bound (what a registered controller advertises). */
  readonly listening = new Promise<number>((resolve) => (this.onListening = resolve));

  constructor(
    @Inject(CONTROLLER_SETTINGS) private readonly settings: ControllerSettings,
    @Inject(QUEUE) private readonly queue: QueuePort,
    private readonly identity: ControllerIdentity,
    private readonly streams: WorkerStreams,
    private readonly dispatch: JobDispatch,
    private readonly registry: WorkerRegistry,
    private readonly broadcastFollower: BroadcastFollower,
    private readonly auth: WorkerAuthGrpc,
    private readonly maintenance: MaintenanceMode,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const implementation: WorkerControllerServiceServer = { connect: (call) => this.streams.connect(call) };
    this.server.addService(WorkerControllerServiceService, implementation);
    this.server.addService(WorkerAuthServiceService, this.auth.implementation());
    const { host, port, tls } = this.settings.grpc;
    const credentials = grpcServerCredentials(tls, {
      onRefused: (refused) =>
        this.logger.warn(
          refused,
          "refused a worker's client certificate: it does not chain to LANNER_GRPC_TLS_CA or is out of its validity",
        ),
      onUnchecked: (method, peer) =>
        this.logger.error(
          { method, peer },
          'cannot read the TLS connection of a call to check its client certificate; the call is refused (is @grpc/grpc-js at the version Lanner was tested with?)',
        ),
    });
    const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    const boundPort = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync(address, credentials, (error, bound) => (error ? reject(error) : resolve(bound))),
    ).catch((error: unknown) => {
      // grpc-js parses the PEM files only here; a bad pair surfaces as a bind failure.
      if (tls?.certFile)
        throw new GrpcTlsSetupError([
          `cannot serve gRPC on ${address} with LANNER_GRPC_TLS_CERT / LANNER_GRPC_TLS_KEY: ${error instanceof Error ? error.message : String(error)}`,
        ]);
      throw error;
    });
    // Read before any worker connects: a controller started during maintenance sends no job.
    this.maintenance.start();
    this.registry.start();
    this.onListening(boundPort);
    this.logger.log(
      { host, port: boundPort, tls: tls?.certFile ? tls.clientAuth : 'off', controllerId: this.identity.id },
      'controller gRPC listening',
    );
    // In the background: a queue down at start must not keep the role from starting (it reports not ready instead).
    this.queueSetup = this.prepareQueue();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    await this.queueSetup;
    // Dispatch first (no more fetching; jobs waiting for a slot go back to their topics), then the streams.
    await this.dispatch.close();
    await this.streams.closeAll('the controller is shutting down');
    await this.registry.close();
    await this.broadcasts?.close();
    await this.maintenance.stop();
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, SHUTDOWN_GRACE_MS);
      this.server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    });
  }

  private async prepareQueue(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      try {
        await this.queue.createTopics(
          spineTopics(RESERVED_WORKER_QUEUE_IDS).map((topic) => ({ topic, partitions: DEFAULT_TOPIC_PARTITIONS })),
        );
        this.broadcasts = await this.queue.subscribe({
          groupId: `lanner-controller-broadcast-${this.identity.id}`,
          topics: [QueueTopics.broadcast],
          handler: (message) => this.broadcastFollower.handle(message),
        });
        if (this.stopping.signal.aborted) await this.broadcasts.close();
        else {
          // Kills published from now on reach this controller; jobs queued before are checked against the store.
          this.broadcastFollower.following();
          this.logger.log({ controllerId: this.identity.id }, 'following broadcasts');
        }
        return;
      } catch (error) {
        this.logger.warn(
          { error: error instanceof Error ? error.message : String(error), retryInMs: QUEUE_SETUP_RETRY_MS },
          'cannot set up the queue topics and broadcasts yet; will retry',
        );
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, QUEUE_SETUP_RETRY_MS);
          this.stopping.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    }
  }
}
