// Field-level rules shared by the declarative setup and the REST validators.
// Every reader records problems and returns what it could read, so that one
// pass reports every problem at once.
import {
  isReservedWorkerQueueId,
  SYSTEM_WORKER_QUEUE_ID,
  WORKER_RESTART_STRATEGIES,
  type WorkerRestartStrategy,
} from '@lanner/model';
import { sameTagSet, type ValidationProblem } from '@lanner/worker-selector';
import {
  DEFAULT_SUBSCRIPTION_MODE,
  SUBSCRIPTION_MODES,
  type SubscriptionMode,
  type SubscriptionSpec,
  type WorkerQueueSpec,
} from './topology-model';

const RFC_1123_LABEL = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
export const MAX_ID_LENGTH = 63;

/** RFC 1123 label: lowercase alphanumerics and '-', starts and ends alphanumeric, at most 63 characters. */
export function isRfc1123Label(id: string): boolean {
  return id.length <= MAX_ID_LENGTH && RFC_1123_LABEL.test(id);
}

export class Problems {
  readonly list: ValidationProblem[] = [];
  add(path: string, message: string): void {
    this.list.push({ path, message });
  }
  get empty(): boolean {
    return this.list.length === 0;
  }
}

export const field = (base: string, name: string): string => (base ? `${base}.${name}` : name);
export const element = (base: string, index: number): string => `${base}[${index}]`;
export const quote = (value: string): string => `'${value}'`;

export type Fields = Record<string, unknown>;

export function readObject(value: unknown, path: string, what: string, problems: Problems): Fields | undefined {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Fields;
  problems.add(path || '$', `must be an object describing ${what}`);
  return undefined;
}

export function rejectUnknownFields(
  fields: Fields,
  known: readonly string[],
  base: string,
  what: string,
  problems: Problems,
): void {
  for (const key of Object.keys(fields)) {
    if (!known.includes(key)) problems.add(field(base, key), `is not a known field of ${what}`);
  }
}

export function readList(value: unknown, path: string, problems: Problems): unknown[] | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value;
  problems.add(path, 'must be a list');
  return undefined;
}

export function readOptionalText(value: unknown, path: string, problems: Problems): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  problems.add(path, 'must be a string');
  return undefined;
}

export function readRequiredText(value: unknown, path: string, problems: Problems): string | undefined {
  if (value === undefined || value === null) {
    problems.add(path, 'is required');
    return undefined;
  }
  if (typeof value !== 'string' || value.trim().length === 0) {
    problems.add(path, 'must be a non-blank string');
    return undefined;
  }
  return value;
}

/** Reads an entity id (required, RFC 1123). */
export function readId(value: unknown, path: string, problems: Problems): string | undefined {
  if (value === undefined || value === null || value === '') {
    problems.add(path, 'is required');
    return undefined;
  }
  if (typeof value !== 'string') {
    problems.add(path, 'must be a string');
    return undefined;
  }
  if (!isRfc1123Label(value)) {
    problems.add(
      path,
      `${quote(value)} is not an RFC 1123 label (lowercase letters, digits and '-', starting and ending with a letter or digit, at most ${MAX_ID_LENGTH} characters)`,
    );
    return undefined;
  }
  return value;
}

export function reservedQueueIdMessage(id: string): string {
  return `${quote(id)} is a reserved worker queue id: it always exists and cannot be created, changed or deleted`;
}

/** Reads a queue's id, tags, allowedTenants and description (not collisions: they need the neighbours). */
export function readWorkerQueueBody(
  id: string | undefined,
  fields: Fields,
  base: string,
  problems: Problems,
): WorkerQueueSpec | undefined {
  const before = problems.list.length;
  const tags = readTagSet(fields['tags'], field(base, 'tags'), problems);
  const allowedTenants = readTenants(fields['allowedTenants'], field(base, 'allowedTenants'), problems);
  const description = readOptionalText(fields['description'], field(base, 'description'), problems);
  if (id === undefined || problems.list.length > before || !tags) return undefined;
  return { id, tags, allowedTenants, ...(description === undefined ? {} : { description }) };
}

export function readQueueId(value: unknown, path: string, problems: Problems): string | undefined {
  const id = readId(value, path, problems);
  if (id !== undefined && isReservedWorkerQueueId(id)) {
    problems.add(path, reservedQueueIdMessage(id));
    return undefined;
  }
  return id;
}

function readTagSet(value: unknown, path: string, problems: Problems): string[] | undefined {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) {
    problems.add(path, 'must hold at least one tag');
    return undefined;
  }
  const list = readList(value, path, problems);
  if (!list) return undefined;
  const tags: string[] = [];
  list.forEach((tag, i) => {
    const at = element(path, i);
    if (typeof tag !== 'string' || tag.trim().length === 0) problems.add(at, 'must be a non-blank string');
    else if (tag.trim() !== tag) problems.add(at, `${quote(tag)} must not start or end with whitespace`);
    else if (tags.includes(tag)) problems.add(at, `repeats the tag ${quote(tag)}`);
    else tags.push(tag);
  });
  return tags.length === list.length ? tags : undefined;
}

function readTenants(value: unknown, path: string, problems: Problems): string[] {
  const list = readList(value, path, problems) ?? [];
  const tenants: string[] = [];
  list.forEach((tenant, i) => {
    const at = element(path, i);
    if (typeof tenant !== 'string' || tenant.trim().length === 0) problems.add(at, 'must be a non-blank tenant id');
    else if (tenants.includes(tenant)) problems.add(at, `repeats the tenant ${quote(tenant)}`);
    else tenants.push(tenant);
  });
  return tenants;
}

/** The first other queue with the same tag set, if any (the queue with the same id is itself, not a collision). */
export function collidingQueue<Q extends { id: string; tags: readonly string[] }>(
  queue: { id: string; tags: readonly string[] },
  others: readonly Q[],
): Q | undefined {
  return others.find((other) => other.id !== queue.id && sameTagSet(other.tags, queue.tags));
}

export const RESERVED_PERCENT_MESSAGE = 'must be a whole number from 1 to 100';

export function readReservedPercent(value: unknown, path: string, problems: Problems): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 100) {
    problems.add(path, RESERVED_PERCENT_MESSAGE);
    return undefined;
  }
  return value;
}

export function readMode(value: unknown, path: string, problems: Problems): SubscriptionMode {
  if (value === undefined) return DEFAULT_SUBSCRIPTION_MODE;
  if (typeof value === 'string' && SUBSCRIPTION_MODES.includes(value as SubscriptionMode)) return value as SubscriptionMode;
  problems.add(path, `must be one of ${SUBSCRIPTION_MODES.join(', ')}`);
  return DEFAULT_SUBSCRIPTION_MODE;
}

/** A worker group's `restartStrategy`: absent stays absent (the caller knows the default). */
export function readRestartStrategy(value: unknown, path: string, problems: Problems): WorkerRestartStrategy | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && (WORKER_RESTART_STRATEGIES as readonly string[]).includes(value))
    return value as WorkerRestartStrategy;
  problems.add(path, `must be one of ${WORKER_RESTART_STRATEGIES.join(', ')}`);
  return undefined;
}

export function reservedSumMessage(sum: number): string {
  return `reserved percentages add up to ${sum}, above 100`;
}

/** What a subscription's queue reference may point at. */
export interface QueueCatalog {
  has(queueId: string): boolean;
}

export function systemSubscriptionMessage(): string {
  return `cannot subscribe to the '${SYSTEM_WORKER_QUEUE_ID}' worker queue: it is served only by the in-process system worker`;
}

/**
 * Reads a group's subscription list: each entry, then duplicates and the
 * reserved-percent sum over the whole list (path: the list itself).
 */
export function readSubscriptions(value: unknown, path: string, catalog: QueueCatalog, problems: Problems): SubscriptionSpec[] {
  const list = readList(value, path, problems) ?? [];
  const subscriptions: SubscriptionSpec[] = [];
  const firstAt = new Map<string, number>();
  let sum = 0;
  list.forEach((entry, i) => {
    const at = element(path, i);
    const fields = readObject(entry, at, 'a subscription', problems);
    if (!fields) return;
    rejectUnknownFields(fields, ['workerQueueId', 'reservedPercent', 'mode'], at, 'a subscription', problems);
    const before = problems.list.length;
    const queueId = readQueueReference(fields['workerQueueId'], at, catalog, problems);
    const reservedPercent = readReservedPercent(fields['reservedPercent'], field(at, 'reservedPercent'), problems);
    const mode = readMode(fields['mode'], field(at, 'mode'), problems);
    if (reservedPercent !== undefined) sum += reservedPercent;
    if (queueId !== undefined) {
      const first = firstAt.get(queueId);
      if (first !== undefined)
        problems.add(at, `subscribes to the worker queue ${quote(queueId)} again (see ${element(path, first)})`);
      else firstAt.set(queueId, i);
    }
    if (queueId !== undefined && problems.list.length === before) {
      subscriptions.push({ workerQueueId: queueId, mode, ...(reservedPercent === undefined ? {} : { reservedPercent }) });
    }
  });
  if (sum > 100) problems.add(path, reservedSumMessage(sum));
  return subscriptions;
}

/** Problems about the reference are reported on the subscription itself, as WORKERS.md's example does. */
function readQueueReference(
  value: unknown,
  subscriptionPath: string,
  catalog: QueueCatalog,
  problems: Problems,
): string | undefined {
  const path = field(subscriptionPath, 'workerQueueId');
  if (value === undefined || value === null || value === '') {
    problems.add(path, 'is required');
    return undefined;
  }
  if (typeof value !== 'string') {
    problems.add(path, 'must be a string');
    return undefined;
  }
  if (value === SYSTEM_WORKER_QUEUE_ID) {
    problems.add(subscriptionPath, systemSubscriptionMessage());
    return undefined;
  }
  if (!catalog.has(value)) {
    problems.add(subscriptionPath, `references the unknown worker queue ${quote(value)}`);
    return undefined;
  }
  return value;
}
