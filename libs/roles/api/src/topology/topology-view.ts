import type {
  ConnectedWorkerRecord,
  RegistrationTokenRecord,
  ServiceInstanceRecord,
  StoredJson,
  SubscriptionRecord,
  WorkerGroupRecord,
  WorkerQueueRecord,
} from '@lanner/model';

// What the topology routes answer: plain JSON, instants as ISO-8601 strings,
// never a token value or hash.

function iso(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}

export function workerQueueView(queue: WorkerQueueRecord) {
  return {
    id: queue.id,
    tags: queue.tags,
    allowedTenants: queue.allowedTenants,
    description: queue.description,
    reserved: queue.reserved,
    createdAt: iso(queue.createdAt),
    updatedAt: iso(queue.updatedAt),
  };
}

export function subscriptionView(subscription: SubscriptionRecord) {
  return { workerQueueId: subscription.workerQueueId, reservedPercent: subscription.reservedPercent, mode: subscription.mode };
}

export function workerGroupView(group: WorkerGroupRecord) {
  return {
    id: group.id,
    name: group.name,
    description: group.description,
    restartStrategy: group.restartStrategy,
    reserved: group.reserved,
    subscriptions: group.subscriptions.map(subscriptionView),
    createdAt: iso(group.createdAt),
    updatedAt: iso(group.updatedAt),
  };
}

/** A stored token: no value, no hash. */
export function registrationTokenView(token: RegistrationTokenRecord) {
  return {
    id: token.id,
    name: token.name,
    createdAt: iso(token.createdAt),
    lastUsedAt: iso(token.lastUsedAt),
    revokedAt: iso(token.revokedAt),
  };
}

export function connectedWorkerView(worker: ConnectedWorkerRecord) {
  return {
    id: worker.workerId,
    name: worker.workerName,
    controller: worker.controllerInstanceId,
    slots: worker.slots,
    state: worker.draining ? ('DRAINING' as const) : ('CONNECTED' as const),
    draining: worker.draining,
    queues: [...worker.queueIds],
    connectedAt: iso(worker.connectedAt),
    lastHeartbeatAt: iso(worker.heartbeatAt),
  };
}

export function serviceInstanceView(instance: ServiceInstanceRecord) {
  return {
    id: instance.id,
    role: instance.role,
    host: instance.host,
    state: instance.state,
    startedAt: iso(instance.startedAt),
    heartbeatAt: iso(instance.heartbeatAt),
    stateChangedAt: iso(instance.stateChangedAt),
  };
}

export interface CapacityFigures {
  readonly reserved: number;
  readonly used: number;
  readonly borrowed: number;
  readonly lent: number;
  readonly waiting: number;
}

export interface SubscriptionCapacityView extends CapacityFigures {
  readonly workerQueueId: string;
  readonly mode: string | null;
  readonly reservedPercent: number | null;
}

export interface WorkerCapacityView extends CapacityFigures {
  readonly workerId: string;
  readonly name: string;
  readonly slots: number;
  readonly state: 'CONNECTED' | 'DRAINING';
  /** False until the worker's controller wrote a ledger snapshot: every figure is then 0. */
  readonly reported: boolean;
  readonly subscriptions: readonly SubscriptionCapacityView[];
}

/**
 * A worker's ledger as its controller last wrote it (a @lanner/capacity
 * CapacitySnapshot in the registry row). The row is read defensively: a
 * missing or non-numeric figure reads as 0, and `waiting` (not part of every
 * snapshot) as 0 when absent. Removed subscriptions whose slots are still
 * held are listed too (`subscribed: false` in the snapshot).
 */
export function workerCapacityView(worker: ConnectedWorkerRecord): WorkerCapacityView {
  const snapshot = asObject(worker.capacity);
  const subscriptions = (Array.isArray(snapshot?.['subscriptions']) ? snapshot['subscriptions'] : []).flatMap(
    (entry): SubscriptionCapacityView[] => {
      const fields = asObject(entry);
      const workerQueueId = fields?.['workerQueueId'];
      if (!fields || typeof workerQueueId !== 'string') return [];
      const percent = count(fields['reservedPercent']);
      return [
        {
          workerQueueId,
          mode: typeof fields['mode'] === 'string' ? fields['mode'] : null,
          reservedPercent: percent > 0 ? percent : null,
          ...figures(fields),
        },
      ];
    },
  );
  const own = snapshot ? figures(snapshot) : { reserved: 0, used: 0, borrowed: 0, lent: 0, waiting: 0 };
  return {
    workerId: worker.workerId,
    name: worker.workerName,
    slots: snapshot && typeof snapshot['slots'] === 'number' ? count(snapshot['slots']) : worker.slots,
    state: worker.draining ? 'DRAINING' : 'CONNECTED',
    reported: snapshot !== undefined,
    ...own,
    // A snapshot without its own `waiting` total: the sum over its subscriptions.
    waiting: snapshot && snapshot['waiting'] !== undefined ? own.waiting : subscriptions.reduce((sum, s) => sum + s.waiting, 0),
    subscriptions,
  };
}

function figures(fields: Record<string, StoredJson>): CapacityFigures {
  return {
    reserved: count(fields['reserved']),
    used: count(fields['used']),
    borrowed: count(fields['borrowed']),
    lent: count(fields['lent']),
    waiting: count(fields['waiting']),
  };
}

function count(value: StoredJson | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

function asObject(value: StoredJson | undefined): Record<string, StoredJson> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, StoredJson>) : undefined;
}
