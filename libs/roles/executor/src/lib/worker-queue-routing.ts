import type { Repositories } from '@lanner/repository';
import type { WorkerSelectorSpec } from '@lanner/model';
import {
  expressionTagRenderer,
  WorkerQueueIndex,
  WorkerQueueResolver,
  type RoutingDecision,
  type WorkerAvailability,
} from '@lanner/worker-selector';

/** How long the queues and subscriptions read from the repository are reused. */
const REFRESH_AFTER_MS = 5000;

interface Topology {
  readonly index: WorkerQueueIndex;
  readonly availability: WorkerAvailability;
  readonly readAt: number;
}

/**
 * Routes task runs to worker queues with the resolver of @lanner/worker-selector,
 * over the queues and group subscriptions in the repository (cached briefly).
 * Live availability (connected workers) is the next issue: a queue some group
 * subscribes to counts as served, so only an unsubscribed queue makes a job wait.
 */
export class WorkerQueueRouting {
  private topology: Topology | undefined;

  constructor(private readonly repositories: Pick<Repositories, 'workerQueues' | 'workerGroups'>) {}

  async route(selector: WorkerSelectorSpec | undefined, tenant: string, context: Record<string, unknown>, now: number): Promise<RoutingDecision> {
    const { index, availability } = await this.current(now);
    const resolver = new WorkerQueueResolver(index, expressionTagRenderer(new Date(now)));
    return resolver.resolve(
      selector === undefined ? undefined : { tags: [...selector.tags], match: selector.match, ...(selector.fallback ? { fallback: selector.fallback } : {}) },
      { tenant, variables: context },
      availability,
    );
  }

  private async current(now: number): Promise<Topology> {
    if (this.topology !== undefined && now - this.topology.readAt < REFRESH_AFTER_MS) return this.topology;
    const [queues, groups] = await Promise.all([this.repositories.workerQueues.list(), this.repositories.workerGroups.list()]);
    const subscribers = new Map<string, number>();
    for (const group of groups) {
      for (const subscription of group.subscriptions) {
        subscribers.set(subscription.workerQueueId, (subscribers.get(subscription.workerQueueId) ?? 0) + 1);
      }
    }
    this.topology = {
      index: WorkerQueueIndex.build(queues.map((queue) => ({ id: queue.id, tags: queue.tags, allowedTenants: queue.allowedTenants }))),
      availability: {
        subscribedGroups: (queueId) => subscribers.get(queueId) ?? 0,
        connectedWorkers: (queueId) => ((subscribers.get(queueId) ?? 0) > 0 ? 1 : 0),
      },
      readAt: now,
    };
    return this.topology;
  }
}
