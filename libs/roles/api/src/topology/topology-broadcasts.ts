import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type BroadcastMessage, broadcastCodec, encodeQueueMessage, QueueTopics } from '@lanner/frames';
import type { SubscriptionRecord } from '@lanner/model';
import type { QueuePort } from '@lanner/queue';
import { QUEUE } from '@lanner/runtime';
import { API_ROLE_OPTIONS, type ApiRoleOptions } from '../api-role.options';

/**
 * What topology changes tell every controller through `lanner.broadcast`, so
 * that they apply at once without a restart (WORKERS.md): a group's new
 * subscription list, a revoked registration token. Only ids travel, never a
 * token value.
 */
@Injectable()
export class TopologyBroadcasts {
  private readonly topic: string;

  constructor(
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(API_ROLE_OPTIONS) options: ApiRoleOptions,
  ) {
    this.topic = `${options.topicPrefix ?? ''}${QueueTopics.broadcast}`;
  }

  /** The group's full list (empty once the group is deleted); it replaces what controllers hold. */
  subscriptionsChanged(
    workerGroupId: string,
    subscriptions: readonly SubscriptionRecord[],
    correlationId: string,
  ): Promise<void> {
    return this.publish({
      ...this.envelope(correlationId),
      type: 'broadcast.subscriptions-changed',
      payload: {
        workerGroupId,
        subscriptions: subscriptions.map((s) => ({
          workerQueueId: s.workerQueueId,
          mode: s.mode,
          ...(s.reservedPercent === null ? {} : { reservedPercent: s.reservedPercent }),
        })),
      },
    });
  }

  tokenRevoked(workerGroupId: string, registrationTokenId: string, correlationId: string): Promise<void> {
    return this.publish({
      ...this.envelope(correlationId),
      type: 'broadcast.token-revoked',
      payload: { workerGroupId, registrationTokenId },
    });
  }

  private envelope(correlationId: string) {
    return { schemaVersion: 1 as const, messageId: randomUUID(), occurredAt: new Date().toISOString(), correlationId };
  }

  private async publish(message: BroadcastMessage): Promise<void> {
    await this.queue.publish(this.topic, [encodeQueueMessage(broadcastCodec, message)]);
  }
}
