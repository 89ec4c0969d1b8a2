// Validators for the REST API's topology writes (API.md, "Worker topology").
// Paths are JSON paths into the request body (`tags[1]`,
// `subscriptions[0].reservedPercent`); the id from the URL is reported as `id`.
// Reserved ids are a 403 and deletions in use a 409 at the edge, so they have
// their own checks (`checkWorkerQueueDeletion`, `isReservedWorkerQueueId`) besides
// the 422 problems.
import { DEFAULT_WORKER_GROUP_ID, DEFAULT_WORKER_QUEUE_ID, isReservedWorkerQueueId, SYSTEM_WORKER_QUEUE_ID } from '@lanner/model';
import { type WorkerQueue } from '@lanner/worker-selector';
import {
  Problems,
  collidingQueue,
  field,
  quote,
  readId,
  readMode,
  readObject,
  readOptionalText,
  readQueueId,
  readRequiredText,
  readReservedPercent,
  readRestartStrategy,
  readSubscriptions,
  readWorkerQueueBody,
  rejectUnknownFields,
  reservedQueueIdMessage,
  systemSubscriptionMessage,
  type QueueCatalog,
} from './topology-fields';
import { type SubscriptionSpec, type Validation, type WorkerGroupSpec, type WorkerQueueSpec } from './topology-model';

/** `PUT /instance/worker-queues/{id}` with `{ tags, allowedTenants?, description? }`; idempotent, so the queue may already exist. */
export function validateWorkerQueueWrite(
  id: string,
  body: unknown,
  existingQueues: readonly WorkerQueue[],
): Validation<WorkerQueueSpec> {
  const problems = new Problems();
  const queueId = readQueueId(id, 'id', problems);
  const fields = readObject(body, '', 'a worker queue', problems);
  if (!fields) return { ok: false, problems: problems.list };
  rejectUnknownFields(fields, ['tags', 'allowedTenants', 'description'], '', 'a worker queue', problems);
  const spec = readWorkerQueueBody(queueId, fields, '', problems);
  if (spec) {
    const clash = collidingQueue(spec, existingQueues);
    if (clash) problems.add('tags', `has the same tags as the worker queue ${quote(clash.id)}`);
  }
  return spec && problems.empty ? { ok: true, value: spec } : { ok: false, problems: problems.list };
}

/** `PUT /instance/worker-groups/{id}` with `{ name, description?, restartStrategy?, subscriptions? }`. */
export function validateWorkerGroupWrite(
  id: string,
  body: unknown,
  knownQueueIds: QueueCatalog,
): Validation<Omit<WorkerGroupSpec, 'registrationTokens'>> {
  const problems = new Problems();
  const groupId = readId(id, 'id', problems);
  const fields = readObject(body, '', 'a worker group', problems);
  if (!fields) return { ok: false, problems: problems.list };
  rejectUnknownFields(fields, ['name', 'description', 'restartStrategy', 'subscriptions'], '', 'a worker group', problems);
  const name = readRequiredText(fields['name'], 'name', problems);
  const description = readOptionalText(fields['description'], 'description', problems);
  const restartStrategy = readRestartStrategy(fields['restartStrategy'], 'restartStrategy', problems);
  const subscriptions = readSubscriptions(fields['subscriptions'], 'subscriptions', knownQueueIds, problems);
  if (groupId === undefined || name === undefined || !problems.empty) return { ok: false, problems: problems.list };
  return {
    ok: true,
    value: {
      id: groupId,
      name,
      ...(description === undefined ? {} : { description }),
      ...(restartStrategy === undefined ? {} : { restartStrategy }),
      subscriptions,
    },
  };
}

/**
 * `PUT /instance/worker-groups/{id}/subscriptions/{queueId}` with
 * `{ reservedPercent?, mode? }`. `otherSubscriptions` are the group's current
 * subscriptions; the one to this queue (if any) is replaced, not added.
 */
export function validateSubscriptionWrite(
  queueId: string,
  body: unknown,
  otherSubscriptions: readonly SubscriptionSpec[],
  knownQueueIds: QueueCatalog,
): Validation<SubscriptionSpec> {
  const problems = new Problems();
  if (queueId === SYSTEM_WORKER_QUEUE_ID) problems.add('workerQueueId', systemSubscriptionMessage());
  else if (!knownQueueIds.has(queueId)) problems.add('workerQueueId', `references the unknown worker queue ${quote(queueId)}`);
  const fields = readObject(body, '', 'a subscription', problems);
  if (!fields) return { ok: false, problems: problems.list };
  rejectUnknownFields(fields, ['reservedPercent', 'mode'], '', 'a subscription', problems);
  const reservedPercent = readReservedPercent(fields['reservedPercent'], 'reservedPercent', problems);
  const mode = readMode(fields['mode'], field('', 'mode'), problems);
  if (reservedPercent !== undefined) {
    const others = otherSubscriptions
      .filter((s) => s.workerQueueId !== queueId)
      .reduce((sum, s) => sum + (s.reservedPercent ?? 0), 0);
    if (others + reservedPercent > 100) {
      problems.add('reservedPercent', `brings the group's reserved percentages to ${others + reservedPercent}, above 100`);
    }
  }
  if (!problems.empty) return { ok: false, problems: problems.list };
  return { ok: true, value: { workerQueueId: queueId, mode, ...(reservedPercent === undefined ? {} : { reservedPercent }) } };
}

export type DeletionCheck = { allowed: true } | { allowed: false; refusal: 'RESERVED' | 'IN_USE'; message: string };

/** `DELETE /instance/worker-queues/{id}`: 403 for reserved ids, 409 while a group subscribes. */
export function checkWorkerQueueDeletion(id: string, subscribingGroupIds: readonly string[]): DeletionCheck {
  if (isReservedWorkerQueueId(id)) return { allowed: false, refusal: 'RESERVED', message: reservedQueueIdMessage(id) };
  if (subscribingGroupIds.length > 0) {
    return {
      allowed: false,
      refusal: 'IN_USE',
      message: `worker queue ${quote(id)} is still subscribed by ${subscribingGroupIds.map(quote).join(', ')}; remove those subscriptions first`,
    };
  }
  return { allowed: true };
}

/** `DELETE /instance/worker-groups/{id}`: the default group always exists. */
export function checkWorkerGroupDeletion(id: string): DeletionCheck {
  if (id === DEFAULT_WORKER_GROUP_ID) {
    return {
      allowed: false,
      refusal: 'RESERVED',
      message: `the '${DEFAULT_WORKER_GROUP_ID}' worker group always exists and cannot be deleted`,
    };
  }
  return { allowed: true };
}

/** `DELETE /instance/worker-groups/default/subscriptions/default` is refused too: that subscription is permanent. */
export function checkSubscriptionDeletion(groupId: string, queueId: string): DeletionCheck {
  if (groupId === DEFAULT_WORKER_GROUP_ID && queueId === DEFAULT_WORKER_QUEUE_ID) {
    return {
      allowed: false,
      refusal: 'RESERVED',
      message: `the '${DEFAULT_WORKER_GROUP_ID}' group always subscribes to the '${DEFAULT_WORKER_QUEUE_ID}' queue`,
    };
  }
  return { allowed: true };
}
