import * as grpc from '@grpc/grpc-js';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import {
  broadcastCodec,
  decodeQueueMessage,
  DEFAULT_TOPIC_PARTITIONS,
  frameSizeChannelOptions,
  spineTopics,
  QueueTopics,
  WorkerControllerServiceService,
  type WorkerControllerServiceServer,
} from '@lanner/frames';
import type { QueueMessage, QueuePort, QueueSubscription } from '@lanner/queue';
import { QUEUE } from '@lanner/runtime';
import { CONTROLLER_SETTINGS, ControllerIdentity, type ControllerSettings } from './controller-settings';
import { JobDispatch } from './job-dispatch';
import { WorkerFleet } from './worker-fleet';
import { WorkerStreams } from './worker-streams';

const QUEUE_SETUP_RETRY_MS = 5_000;
/** How long open streams get to finish after the controller asked them to go. */
const SHUTDOWN_GRACE_MS = 5_000;

/**
 * The gRPC server workers connect to (`WorkerControllerService.Connect`),
 * started with the application and stopped before the queue and repository
 * close, and the `lanner.broadcast` follower (its own consumer group per
 * controller process, so every controller sees every kill).
 */
@Injectable()
export class WorkerGrpcServer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WorkerGrpcServer.name);
  private readonly server = new grpc.Server(frameSizeChannelOptions());
  private broadcasts: QueueSubscription | undefined;
  private readonly stopping = new AbortController();
  private queueSetup: Promise<void> = Promise.resolve();

  constructor(
    @Inject(CONTROLLER_SETTINGS) private readonly settings: ControllerSettings,
    @Inject(QUEUE) private readonly queue: QueuePort,
    private readonly identity: ControllerIdentity,
    private readonly fleet: WorkerFleet,
    private readonly streams: WorkerStreams,
    private readonly dispatch: JobDispatch,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const implementation: WorkerControllerServiceServer = { connect: (call) => this.streams.connect(call) };
    this.server.addService(WorkerControllerServiceService, implementation);
    const { host, port } = this.settings.grpc;
    const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    const boundPort = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
    );
    this.logger.log({ host, port: boundPort, controllerId: this.identity.id }, 'controller gRPC listening');
    // In the background: a queue down at start must not keep the role from starting (it reports not ready instead).
    this.queueSetup = this.prepareQueue();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    await this.queueSetup;
    await this.streams.closeAll('the controller is shutting down');
    await this.dispatch.close();
    await this.broadcasts?.close();
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
        await this.queue.createTopics(spineTopics().map((topic) => ({ topic, partitions: DEFAULT_TOPIC_PARTITIONS })));
        this.broadcasts = await this.queue.subscribe({
          groupId: `lanner-controller-broadcast-${this.identity.id}`,
          topics: [QueueTopics.broadcast],
          handler: (message) => this.onBroadcast(message),
        });
        if (this.stopping.signal.aborted) await this.broadcasts.close();
        else this.logger.log({ controllerId: this.identity.id }, 'following broadcasts');
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

  private async onBroadcast(message: QueueMessage): Promise<void> {
    let broadcast;
    try {
      broadcast = decodeQueueMessage(broadcastCodec, message.value);
    } catch (error) {
      // A controller cannot hold the broadcast topic for everyone else's messages: log and move on.
      this.logger.warn({ offset: message.offset, partition: message.partition, problem: error instanceof Error ? error.message : String(error) }, 'broadcast ignored');
      return;
    }
    if (broadcast.type !== 'broadcast.kill') return; // capacity, token and maintenance broadcasts arrive with their issues
    const { taskRunId, attempt, reason, executionId } = broadcast.payload;
    const holder = this.fleet.holderOf(taskRunId, attempt);
    if (!holder) return; // another controller's worker holds it
    holder.send({ frame: { $case: 'kill', value: { taskRunId, attempt, reason } } });
    this.logger.log({ workerId: holder.workerId, taskRunId, attempt, executionId }, 'kill sent to worker');
  }
}
