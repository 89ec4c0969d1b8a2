import { CONNECTED_WORKER_STALE_MS, type Repositories } from '@lanner/repository';
import { isSystemNamespace, SYSTEM_WORKER_QUEUE_ID, type StoredJson, type WorkerSelectorSpec } from '@lanner/model';
import {
  availabilitySnapshot,
  expressionTagRenderer,
  reasonNoGroupSubscribes,
  REASON_NO_WORKER_CONNECTED,
  resolveSelector,
  WorkerQueueIndex,
  WorkerQueueResolver,
  type RoutingCause,
  type RoutingDecision,
  type SelectorLevel,
  type WorkerAvailability,
  type WorkerSelector,
} from '@lanner/worker-selector';

export type RoutingSources = Pick<Repositories, 'workerQueues' | 'workerGroups' | 'connectedWorkers' | 'namespaces' | 'tenants'>;

export interface RoutingRefresh {
  /** How long the queues, subscriptions and connected workers read are reused: a worker that connects is seen within it. */
  readonly fleetMs: number;
  /** How long the namespace and tenant selectors read are reused. */
  readonly selectorsMs: number;
}

export const DEFAULT_ROUTING_REFRESH: RoutingRefresh = { fleetMs: 1000, selectorsMs: 5000 };

export interface RoutingRequest {
  /** The task's selector, else its flow's (as the state machine gives it in the dispatch action). */
  readonly selector: WorkerSelectorSpec | undefined;
  readonly namespace: string;
  readonly tenant: string;
  /** The execution context the selector's tags are rendered against. */
  readonly variables: Record<string, unknown>;
}

export interface Routed extends RoutingDecision {
  /** Which level declared the selector that decided it. */
  readonly level: SelectorLevel;
}

interface Fleet {
  readonly index: WorkerQueueIndex;
  readonly availability: WorkerAvailability;
}

interface TenantSelectors {
  readonly namespaces: ReadonlyMap<string, WorkerSelector>;
  readonly tenant: WorkerSelector | undefined;
}

/** Causes a newer view of the fleet could change: the decision is made again on a fresh read. */
const FLEET_CHANGE_MAY_SERVE: ReadonlySet<RoutingCause> = new Set<RoutingCause>([
  'NO_QUEUE_MATCHES',
  'NO_GROUP_SUBSCRIBES',
  'NO_WORKER_CONNECTED',
]);
/** A view read this recently is as fresh as a second look can ask (decisions of one moment share it). */
const FLEET_REREAD_MIN_AGE_MS = 20;

/** Where a task of a platform flow goes: the `system` queue, served by the executor's in-process worker. */
const SYSTEM_ROUTED: Routed = {
  action: 'DISPATCH',
  queueId: SYSTEM_WORKER_QUEUE_ID,
  cause: 'SERVED',
  reason: `a task of the platform namespace goes to the '${SYSTEM_WORKER_QUEUE_ID}' queue`,
  tags: [],
  level: 'NONE',
};

/** A value read from the repository and reused for a while; concurrent readers share one read. */
class Cached<T> {
  private value: { readonly promise: Promise<T>; readonly readAt: number } | undefined;

  constructor(
    private readonly maxAgeMs: number,
    private readonly read: () => Promise<T>,
  ) {}

  get(now: number): Promise<T> {
    return this.youngerThan(this.maxAgeMs, now);
  }

  /** The value read again unless it was read less than `ageMs` ago. */
  youngerThan(ageMs: number, now: number): Promise<T> {
    if (this.value !== undefined && now - this.value.readAt < ageMs) return this.value.promise;
    const promise = this.read();
    const entry = { promise, readAt: now };
    this.value = entry;
    // A failed read is not kept: the next caller reads again.
    promise.catch(() => {
      if (this.value === entry) this.value = undefined;
    });
    return promise;
  }
}

/**
 * Routes task runs to worker queues with the resolver of @lanner/worker-selector:
 * the selector that applies (task, flow, nearest namespace ancestor, tenant),
 * the queues, and the live fleet: the group subscriptions and the workers the
 * controllers registered as connected (rows not refreshed within
 * CONNECTED_WORKER_STALE_MS belong to a dead controller and do not count; a
 * draining worker does not count either).
 */
export class WorkerQueueRouting {
  private readonly fleet: Cached<Fleet>;
  private readonly selectors = new Map<string, Cached<TenantSelectors>>();

  constructor(
    private readonly sources: RoutingSources,
    private readonly refresh: RoutingRefresh = DEFAULT_ROUTING_REFRESH,
    private readonly clock: () => number = Date.now,
  ) {
    this.fleet = new Cached(refresh.fleetMs, () => this.readFleet());
  }

  async route(request: RoutingRequest, now: number): Promise<Routed> {
    // The platform's own flows run on the in-process system worker, which every executor holds: no selector applies.
    if (isSystemNamespace(request.namespace)) return SYSTEM_ROUTED;
    const routed = await this.routeWith(await this.fleet.get(now), request, now);
    if (!FLEET_CHANGE_MAY_SERVE.has(routed.cause)) return routed;
    // A queue, group or subscription made moments ago (a topology applied, then a flow run at
    // once) may be missing from the view read before it: such a decision is made again on a
    // fresh read of the fleet (shared by the decisions of the same moment).
    return this.routeWith(await this.fleet.youngerThan(FLEET_REREAD_MIN_AGE_MS, now), request, now);
  }

  private async routeWith(fleet: Fleet, request: RoutingRequest, now: number): Promise<Routed> {
    const declared = await this.selectorsOf(request.tenant, now);
    const resolved = resolveSelector({
      task: request.selector === undefined ? null : toWorkerSelector(request.selector),
      namespace: request.namespace,
      namespaces: declared.namespaces,
      tenant: declared.tenant ?? null,
    });
    const resolver = new WorkerQueueResolver(fleet.index, expressionTagRenderer(new Date(now)));
    const decision = resolver.resolve(
      resolved.selector,
      { tenant: request.tenant, variables: request.variables },
      fleet.availability,
    );
    const origin =
      resolved.level === 'NAMESPACE'
        ? ` (worker selector of namespace '${resolved.namespace}')`
        : resolved.level === 'TENANT'
          ? ` (worker selector of tenant '${request.tenant}')`
          : '';
    return { ...decision, reason: `${decision.reason}${origin}`, level: resolved.level };
  }

  /**
   * For a job that keeps the queue it had (a retry, a restart, a lost worker):
   * why no worker can take it now, or undefined when one can. The job waits on
   * its queue either way; it is never routed afresh.
   */
  async waitingReason(queueId: string, now: number): Promise<string | undefined> {
    if (queueId === SYSTEM_WORKER_QUEUE_ID) return undefined;
    const { availability } = await this.fleet.get(now);
    if (availability.subscribedGroups(queueId) === 0) return `${reasonNoGroupSubscribes(queueId)}; the job waits on the queue`;
    if (availability.connectedWorkers(queueId) === 0)
      return `${REASON_NO_WORKER_CONNECTED} (queue '${queueId}'); the job waits on the queue`;
    return undefined;
  }

  private async readFleet(): Promise<Fleet> {
    const freshSince = new Date(this.clock() - CONNECTED_WORKER_STALE_MS);
    const [queues, groups, workers] = await Promise.all([
      this.sources.workerQueues.list(),
      this.sources.workerGroups.list(),
      this.sources.connectedWorkers.listLive(freshSince),
    ]);
    return {
      index: WorkerQueueIndex.build(
        queues.map((queue) => ({ id: queue.id, tags: queue.tags, allowedTenants: queue.allowedTenants })),
      ),
      availability: availabilitySnapshot({
        subscriptions: groups.flatMap((group) =>
          group.subscriptions.map((subscription) => ({ groupId: group.id, workerQueueId: subscription.workerQueueId })),
        ),
        workers: workers.map((worker) => ({
          workerId: worker.workerId,
          groupId: worker.workerGroupId,
          draining: worker.draining,
        })),
      }),
    };
  }

  private selectorsOf(tenant: string, now: number): Promise<TenantSelectors> {
    let cached = this.selectors.get(tenant);
    if (cached === undefined) {
      cached = new Cached(this.refresh.selectorsMs, () => this.readSelectors(tenant));
      this.selectors.set(tenant, cached);
    }
    return cached.get(now);
  }

  private async readSelectors(tenant: string): Promise<TenantSelectors> {
    const [namespaces, tenantSelector] = await Promise.all([
      this.sources.namespaces.listWorkerSelectors(tenant),
      this.sources.tenants.getWorkerSelector(tenant),
    ]);
    return {
      namespaces: new Map(namespaces.map((row) => [row.namespace, storedSelector(row.workerSelector)])),
      tenant: tenantSelector === null ? undefined : storedSelector(tenantSelector),
    };
  }
}

function toWorkerSelector(spec: WorkerSelectorSpec): WorkerSelector {
  return { tags: [...spec.tags], match: spec.match, ...(spec.fallback !== undefined ? { fallback: spec.fallback } : {}) };
}

/**
 * A selector as stored in namespace or tenant settings. Handed to the resolver
 * as written: one that breaks a rule is refused there, with its problems and
 * the level that declared it in the task run's message.
 */
function storedSelector(value: StoredJson): WorkerSelector {
  return value as unknown as WorkerSelector;
}
