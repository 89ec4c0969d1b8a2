// Small builders shared by the scenario specs (not exported from the lib).
import {
  WorkerQueueIndex,
  WorkerQueueResolver,
  availabilitySnapshot,
  type TagRenderer,
  type WorkerAvailability,
  type WorkerQueue,
} from '../index';

export function queue(id: string, tags: string[], allowedTenants: string[] = []): WorkerQueue {
  return { id, tags, allowedTenants };
}

export function resolverFor(queues: WorkerQueue[], renderer?: TagRenderer): WorkerQueueResolver {
  return new WorkerQueueResolver(WorkerQueueIndex.build(queues), renderer);
}

/**
 * A fleet where the group `<queue>-group` subscribes to each listed queue and
 * has the given number of ready workers; `default` is served by one worker.
 */
export function fleet(readyWorkersByQueue: Record<string, number>): WorkerAvailability {
  const entries = Object.entries({ default: 1, ...readyWorkersByQueue });
  return availabilitySnapshot({
    subscriptions: entries.map(([workerQueueId]) => ({ groupId: `${workerQueueId}-group`, workerQueueId })),
    workers: entries.flatMap(([workerQueueId, count]) =>
      Array.from({ length: count }, (_, i) => ({
        workerId: `${workerQueueId}-w${i}`,
        groupId: `${workerQueueId}-group`,
        draining: false,
      })),
    ),
  });
}

/** A renderer for `{{ name }}` placeholders over a flat context: enough for routing scenarios. */
export const placeholderRenderer: TagRenderer = (template, context) => {
  const placeholder = /^\{\{\s*([\w.]+)\s*\}\}$/.exec(template);
  if (!placeholder) return template;
  const value = placeholder[1]
    .split('.')
    .reduce<unknown>(
      (scope, key) => (typeof scope === 'object' && scope !== null ? (scope as Record<string, unknown>)[key] : undefined),
      context,
    );
  return typeof value === 'string' ? value : value === null || value === undefined ? value : String(value);
};
