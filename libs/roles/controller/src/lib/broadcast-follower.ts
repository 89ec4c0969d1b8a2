import { Injectable, Logger, Optional } from '@nestjs/common';
import { broadcastCodec, decodeQueueMessage, type BroadcastMessage } from '@lanner/frames';
import type { QueueMessage } from '@lanner/queue';
import { MaintenanceMode } from '@lanner/runtime';
import { KilledJobs } from './killed-jobs';
import { WorkerFleet } from './worker-fleet';
import { WorkerStreams } from './worker-streams';

/**
 * What `lanner.broadcast` asks of this controller's workers: kill a job (and
 * remember the kill, so the job is never sent if it still waits on its topic),
 * apply a group's new subscriptions, drop the workers of a revoked
 * registration token, enter or leave maintenance mode. Every controller reads every broadcast (a consumer
 * group of its own); a message about workers held elsewhere changes nothing here.
 */
@Injectable()
export class BroadcastFollower {
  private readonly logger = new Logger(BroadcastFollower.name);

  constructor(
    private readonly fleet: WorkerFleet,
    private readonly streams: WorkerStreams,
    private readonly killedJobs: KilledJobs,
    @Optional() private readonly maintenance?: MaintenanceMode,
  ) {}

  /**
   * This controller's broadcast consumer is in its group: kills published from
   * now on are read here, so only jobs queued before need the execution store's word.
   * `at` defaults to the controller clock's now.
   */
  following(at?: number): void {
    this.killedJobs.followingKills(at);
  }

  async handle(message: QueueMessage): Promise<void> {
    // A message read proves the consumer follows the topic (a safe, later bound when `following` was not called).
    this.killedJobs.followingKills();
    let broadcast: BroadcastMessage;
    try {
      broadcast = decodeQueueMessage(broadcastCodec, message.value);
    } catch (error) {
      // A controller cannot hold the broadcast topic for everyone else's messages: log and move on.
      this.logger.warn(
        { offset: message.offset, partition: message.partition, problem: error instanceof Error ? error.message : String(error) },
        'broadcast ignored',
      );
      return;
    }
    switch (broadcast.type) {
      case 'broadcast.kill': {
        const { taskRunId, attempt, reason, executionId } = broadcast.payload;
        const holder = this.fleet.holderOf(taskRunId, attempt);
        // Remembered even when a worker here holds it: a redelivery of the job is then not sent again.
        this.killedJobs.killed(taskRunId, attempt, reason, holder !== undefined);
        if (!holder) {
          // Another controller's worker holds it, or its job still waits on a topic: it will not be sent from here.
          this.logger.log({ taskRunId, attempt, executionId }, 'kill remembered: no worker here holds the job');
          return;
        }
        holder.send({ frame: { $case: 'kill', value: { taskRunId, attempt, reason } } });
        this.logger.log({ workerId: holder.workerId, taskRunId, attempt, executionId }, 'kill sent to worker');
        return;
      }
      case 'broadcast.subscriptions-changed': {
        const { workerGroupId, subscriptions } = broadcast.payload;
        const told = this.streams.subscriptionsChanged(workerGroupId, subscriptions);
        this.logger.log(
          { workerGroupId, queues: subscriptions.map((subscription) => subscription.workerQueueId), workers: told },
          'worker group subscriptions changed',
        );
        return;
      }
      case 'broadcast.token-revoked': {
        const { workerGroupId, registrationTokenId } = broadcast.payload;
        const ended = this.streams.tokenRevoked(registrationTokenId);
        this.logger.log(
          { workerGroupId, registrationTokenId, workers: ended },
          'registration token revoked: its workers get no new job and their streams end',
        );
        return;
      }
      case 'broadcast.maintenance':
        // Dispatch holds (or resumes) through JobDispatch, which follows the maintenance mode.
        this.maintenance?.apply(broadcast.payload.enabled);
        return;
    }
  }
}
