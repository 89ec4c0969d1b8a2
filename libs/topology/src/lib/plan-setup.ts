import { DEFAULT_WORKER_GROUP_ID, DEFAULT_WORKER_QUEUE_ID, SYSTEM_WORKER_QUEUE_ID } from '@lanner/model';
import { DEFAULT_SUBSCRIPTION_MODE, type SubscriptionSpec, type WorkerGroupSpec, type WorkerQueueSpec } from './topology-model';
import type { ValidatedSetup } from './validate-setup';

export type SetupStep =
  | { action: 'CREATE'; kind: 'worker-queue'; id: string; queue: WorkerQueueSpec; logLine: string }
  | { action: 'CREATE'; kind: 'worker-group'; id: string; group: WorkerGroupSpec; logLine: string }
  | { action: 'SKIP'; kind: 'worker-queue' | 'worker-group'; id: string; logLine: string };

export interface SetupPlan {
  /** Queues first (groups subscribe to them), each in declaration order. */
  steps: SetupStep[];
  /** The line to log after the steps ran. */
  summary: string;
}

/** Ids that already exist in the repository. */
export interface ExistingIds {
  workerQueueIds: Iterable<string>;
  workerGroupIds: Iterable<string>;
}

/**
 * Seed semantics: the setup only adds what is absent. An entity whose id
 * exists is skipped whole (no subscription changed, no token added or
 * revoked), so a changed configuration never overrides what the API created.
 *
 * Every `logLine` and the summary are safe to log: tokens appear by name and
 * source (a file path or "config"), never by value; the values travel only
 * inside `RegistrationTokenSecret`, which prints as redacted.
 */
export function planSetup(setup: ValidatedSetup, existing: ExistingIds): SetupPlan {
  const queueIds = new Set([DEFAULT_WORKER_QUEUE_ID, SYSTEM_WORKER_QUEUE_ID, ...existing.workerQueueIds]);
  const groupIds = new Set(existing.workerGroupIds);
  const steps: SetupStep[] = [];

  for (const queue of setup.workerQueues) {
    if (queueIds.has(queue.id)) {
      steps.push({
        action: 'SKIP',
        kind: 'worker-queue',
        id: queue.id,
        logLine: `skipped worker queue '${queue.id}': it already exists`,
      });
    } else {
      steps.push({ action: 'CREATE', kind: 'worker-queue', id: queue.id, queue, logLine: describeQueue(queue) });
    }
  }
  for (const declared of setup.workerGroups) {
    if (groupIds.has(declared.id)) {
      steps.push({
        action: 'SKIP',
        kind: 'worker-group',
        id: declared.id,
        logLine: `skipped worker group '${declared.id}': it already exists`,
      });
    } else {
      const group = { ...declared, subscriptions: withDefaultSubscription(declared.id, declared.subscriptions) };
      steps.push({ action: 'CREATE', kind: 'worker-group', id: group.id, group, logLine: describeGroup(group) });
    }
  }
  return { steps, summary: summarize(steps) };
}

/** The default group always subscribes to the default queue: add it when missing, keep the others alongside. */
export function withDefaultSubscription(groupId: string, subscriptions: readonly SubscriptionSpec[]): SubscriptionSpec[] {
  if (groupId !== DEFAULT_WORKER_GROUP_ID || subscriptions.some((s) => s.workerQueueId === DEFAULT_WORKER_QUEUE_ID))
    return [...subscriptions];
  return [{ workerQueueId: DEFAULT_WORKER_QUEUE_ID, mode: DEFAULT_SUBSCRIPTION_MODE }, ...subscriptions];
}

function describeQueue(queue: WorkerQueueSpec): string {
  const tenants = queue.allowedTenants.length === 0 ? 'all tenants' : `tenants ${queue.allowedTenants.join(', ')}`;
  return `created worker queue '${queue.id}' (tags ${queue.tags.join(', ')}; ${tenants})`;
}

function describeGroup(group: WorkerGroupSpec): string {
  const subscriptions = group.subscriptions
    .map((s) => `${s.workerQueueId} ${s.reservedPercent === undefined ? '' : `${s.reservedPercent}% `}${s.mode}`)
    .join(', ');
  const tokens = group.registrationTokens
    .map((t) => `'${t.name}' from ${t.source.kind === 'file' ? `file ${t.source.path}` : 'config'}`)
    .join(', ');
  return (
    `created worker group '${group.id}' with ${plural(group.subscriptions.length, 'subscription')} (${subscriptions || 'none'})` +
    ` and ${plural(group.registrationTokens.length, 'registration token')}${tokens ? ` (${tokens})` : ''}`
  );
}

function summarize(steps: readonly SetupStep[]): string {
  const count = (kind: SetupStep['kind'], action: SetupStep['action']): number =>
    steps.filter((s) => s.kind === kind && s.action === action).length;
  return (
    `setup: worker queues ${count('worker-queue', 'CREATE')} created, ${count('worker-queue', 'SKIP')} skipped; ` +
    `worker groups ${count('worker-group', 'CREATE')} created, ${count('worker-group', 'SKIP')} skipped`
  );
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
