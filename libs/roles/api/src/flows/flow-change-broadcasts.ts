import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { broadcastCodec, encodeQueueMessage, QUEUE_SCHEMA_VERSIONS, QueueTopics } from '@lanner/frames';
import type { QueuePort } from '@lanner/queue';
import { QUEUE } from '@lanner/runtime';
import { API_ROLE_OPTIONS, type ApiRoleOptions } from '../api-role.options';

/** A flow whose stored revisions or triggers just changed. */
export interface ChangedFlow {
  readonly tenantId: string;
  readonly namespace: string;
  readonly flowId: string;
  /** The revision the change stored (a deletion stores one), or the flow's latest one for a trigger's change. */
  readonly revision: number;
}

/**
 * `broadcast.flows-changed` on `lanner.broadcast`, sent after a flow write
 * committed (a save, a deletion, a trigger enabled or disabled), so every
 * executor reads again which Flow triggers listen without waiting for its
 * refresh. The write is stored either way: a broadcast that cannot be sent is
 * logged, the request still succeeds, and the executors learn of the change
 * at their next refresh (FlowTriggerIndex).
 */
@Injectable()
export class FlowChangeBroadcasts {
  private readonly logger = new Logger(FlowChangeBroadcasts.name);
  private readonly topic: string;

  constructor(
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(API_ROLE_OPTIONS) options: ApiRoleOptions,
  ) {
    this.topic = `${options.topicPrefix ?? ''}${QueueTopics.broadcast}`;
  }

  async changed(flow: ChangedFlow): Promise<void> {
    const { tenantId, namespace, flowId, revision } = flow;
    try {
      await this.queue.publish(this.topic, [
        encodeQueueMessage(broadcastCodec, {
          schemaVersion: QUEUE_SCHEMA_VERSIONS['broadcast.flows-changed'],
          messageId: randomUUID(),
          occurredAt: new Date().toISOString(),
          type: 'broadcast.flows-changed',
          payload: { tenantId, namespace, flowId, revision },
        }),
      ]);
    } catch (error) {
      this.logger.warn(
        { tenantId, namespace, flowId, revision, reason: error instanceof Error ? error.message : String(error) },
        'flow change not broadcast; executors see it at their next refresh',
      );
    }
  }
}
