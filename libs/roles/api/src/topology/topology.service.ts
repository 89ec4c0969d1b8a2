import { Inject, Injectable } from '@nestjs/common';
import { DEFAULT_TOPIC_PARTITIONS, jobTopicsOf } from '@lanner/frames';
import {
  isReservedWorkerQueueId,
  SYSTEM_WORKER_QUEUE_ID,
  type SubscriptionRecord,
  type WorkerGroupRecord,
  type WorkerQueueRecord,
} from '@lanner/model';
import type { QueuePort } from '@lanner/queue';
import { NotFound, type Repositories } from '@lanner/repository';
import { QUEUE, REPOSITORIES } from '@lanner/runtime';
import {
  checkSubscriptionDeletion,
  checkWorkerGroupDeletion,
  checkWorkerQueueDeletion,
  type DeletionCheck,
  type SubscriptionSpec,
  validateSubscriptionWrite,
  validateWorkerGroupWrite,
  validateWorkerQueueWrite,
  type Validation,
} from '@lanner/topology';
import { API_ROLE_OPTIONS, type ApiRoleOptions } from '../api-role.options';
import { Forbidden, InvalidContent, WrongState } from '../http/api-errors';
import { TopologyBroadcasts } from './topology-broadcasts';

export interface Written<T> {
  readonly record: T;
  readonly created: boolean;
}

/**
 * Worker queues, groups and subscriptions as the instance admin changes them.
 * The rules are @lanner/topology's; this service reads what they need, writes,
 * creates a new queue's topic, and tells controllers about subscription changes.
 */
@Injectable()
export class TopologyService {
  private readonly topicPrefix: string;

  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(API_ROLE_OPTIONS) options: ApiRoleOptions,
    private readonly broadcasts: TopologyBroadcasts,
  ) {
    this.topicPrefix = options.topicPrefix ?? '';
  }

  listQueues(): Promise<WorkerQueueRecord[]> {
    return this.repositories.workerQueues.list();
  }

  getQueue(id: string): Promise<WorkerQueueRecord> {
    return this.repositories.workerQueues.get(id);
  }

  async putQueue(id: string, body: unknown): Promise<Written<WorkerQueueRecord>> {
    if (isReservedWorkerQueueId(id))
      throw new Forbidden(`Worker queue '${id}' is reserved: it always exists and cannot be created, changed or deleted`);
    const spec = valid(
      validateWorkerQueueWrite(id, body, await this.repositories.workerQueues.list()),
      'The worker queue is not valid',
    );
    // The topic first: a queue must never exist without the topic its jobs go to (createTopics is idempotent).
    await this.queue.createTopics(
      jobTopicsOf(spec.id).map((topic) => ({ topic: `${this.topicPrefix}${topic}`, partitions: DEFAULT_TOPIC_PARTITIONS })),
    );
    const outcome = await this.repositories.workerQueues.put({
      id: spec.id,
      tags: spec.tags,
      allowedTenants: spec.allowedTenants,
      description: spec.description ?? null,
    });
    return { record: outcome.record, created: outcome.created };
  }

  async deleteQueue(id: string): Promise<void> {
    const subscribers = isReservedWorkerQueueId(id) ? [] : await this.repositories.workerGroups.listSubscribersOf(id);
    refuseUnless(
      checkWorkerQueueDeletion(
        id,
        subscribers.map((s) => s.workerGroupId),
      ),
    );
    // The queue's topic stays: jobs already on it are not lost, and re-creating the queue finds them.
    await this.repositories.workerQueues.delete(id);
  }

  listGroups(): Promise<WorkerGroupRecord[]> {
    return this.repositories.workerGroups.list();
  }

  getGroup(id: string): Promise<WorkerGroupRecord> {
    return this.repositories.workerGroups.get(id);
  }

  async putGroup(id: string, body: unknown, correlationId: string): Promise<Written<WorkerGroupRecord>> {
    const catalog = new Set((await this.repositories.workerQueues.list()).map((q) => q.id));
    const spec = valid(validateWorkerGroupWrite(id, body, catalog), 'The worker group is not valid');
    const givesSubscriptions = typeof body === 'object' && body !== null && 'subscriptions' in body;
    const outcome = await this.repositories.workerGroups.put({
      id: spec.id,
      name: spec.name,
      description: spec.description ?? null,
      ...(spec.restartStrategy === undefined ? {} : { restartStrategy: spec.restartStrategy }),
      ...(givesSubscriptions ? { subscriptions: spec.subscriptions.map(subscriptionWrite) } : {}),
    });
    if (outcome.subscriptionsChanged)
      await this.broadcasts.subscriptionsChanged(spec.id, outcome.record.subscriptions, correlationId);
    return { record: outcome.record, created: outcome.created };
  }

  async deleteGroup(id: string, correlationId: string): Promise<void> {
    refuseUnless(checkWorkerGroupDeletion(id));
    const tokens = await this.repositories.registrationTokens.listByGroup(id);
    await this.repositories.workerGroups.delete(id);
    // Its workers lose their queues and their tokens at once.
    await this.broadcasts.subscriptionsChanged(id, [], correlationId);
    for (const token of tokens.filter((t) => t.revokedAt === null))
      await this.broadcasts.tokenRevoked(id, token.id, correlationId);
  }

  async putSubscription(groupId: string, queueId: string, body: unknown, correlationId: string): Promise<SubscriptionRecord> {
    const group = await this.repositories.workerGroups.get(groupId);
    const queues = await this.repositories.workerQueues.list();
    if (queueId !== SYSTEM_WORKER_QUEUE_ID && !queues.some((q) => q.id === queueId)) throw new NotFound('worker queue', queueId);
    const current: SubscriptionSpec[] = group.subscriptions.map((s) => ({
      workerQueueId: s.workerQueueId,
      mode: s.mode,
      ...(s.reservedPercent === null ? {} : { reservedPercent: s.reservedPercent }),
    }));
    const catalog = new Set(queues.map((q) => q.id));
    const spec = valid(validateSubscriptionWrite(queueId, body ?? {}, current, catalog), 'The subscription is not valid');
    const before = group.subscriptions.find((s) => s.workerQueueId === queueId);
    const stored = await this.repositories.workerGroups.putSubscription(groupId, subscriptionWrite(spec));
    if (before === undefined || before.mode !== stored.mode || before.reservedPercent !== stored.reservedPercent) {
      await this.broadcasts.subscriptionsChanged(
        groupId,
        (await this.repositories.workerGroups.get(groupId)).subscriptions,
        correlationId,
      );
    }
    return stored;
  }

  async deleteSubscription(groupId: string, queueId: string, correlationId: string): Promise<void> {
    refuseUnless(checkSubscriptionDeletion(groupId, queueId));
    await this.repositories.workerGroups.get(groupId);
    await this.repositories.workerGroups.removeSubscription(groupId, queueId);
    await this.broadcasts.subscriptionsChanged(
      groupId,
      (await this.repositories.workerGroups.get(groupId)).subscriptions,
      correlationId,
    );
  }
}

function subscriptionWrite(spec: SubscriptionSpec) {
  return { workerQueueId: spec.workerQueueId, mode: spec.mode, reservedPercent: spec.reservedPercent ?? null };
}

export function valid<T>(validation: Validation<T>, detail: string): T {
  if (validation.ok) return validation.value;
  throw new InvalidContent(detail, validation.problems);
}

/** Reserved: 403; still in use: 409. */
function refuseUnless(check: DeletionCheck): void {
  if (check.allowed) return;
  if (check.refusal === 'RESERVED') throw new Forbidden(capitalise(check.message));
  throw new WrongState(capitalise(check.message));
}

function capitalise(text: string): string {
  return text.length === 0 ? text : text[0].toUpperCase() + text.slice(1);
}
