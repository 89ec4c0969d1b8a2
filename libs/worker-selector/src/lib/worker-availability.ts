/**
 * What the resolver needs to know about the live fleet, per worker queue.
 * Apps implement it from live data (the controllers' worker registry); the
 * resolver only reads it and never caches it.
 */
export interface WorkerAvailability {
  /** How many worker groups subscribe to the queue. */
  subscribedGroups(queueId: string): number;
  /**
   * How many workers of the subscribed groups are connected and not draining.
   * A draining worker takes no new work, so it must not count.
   */
  connectedWorkers(queueId: string): number;
}

export interface FleetSubscription {
  groupId: string;
  workerQueueId: string;
}

export interface FleetWorker {
  workerId: string;
  groupId: string;
  /** Draining workers finish what they run but take nothing new. */
  draining: boolean;
}

/**
 * A point-in-time `WorkerAvailability` computed from subscriptions and the
 * connected workers (each worker counted once per queue its group serves).
 * Apps rebuild it when the fleet changes, or implement the interface directly.
 */
export function availabilitySnapshot(fleet: {
  subscriptions: readonly FleetSubscription[];
  workers: readonly FleetWorker[];
}): WorkerAvailability {
  const groupsByQueue = new Map<string, Set<string>>();
  const queuesByGroup = new Map<string, Set<string>>();
  for (const { groupId, workerQueueId } of fleet.subscriptions) {
    addTo(groupsByQueue, workerQueueId, groupId);
    addTo(queuesByGroup, groupId, workerQueueId);
  }
  const readyWorkersByGroup = new Map<string, Set<string>>();
  for (const worker of fleet.workers) {
    if (!worker.draining) addTo(readyWorkersByGroup, worker.groupId, worker.workerId);
  }
  const workersByQueue = new Map<string, number>();
  for (const [groupId, queues] of queuesByGroup) {
    const ready = readyWorkersByGroup.get(groupId)?.size ?? 0;
    for (const queueId of queues) workersByQueue.set(queueId, (workersByQueue.get(queueId) ?? 0) + ready);
  }
  return {
    subscribedGroups: (queueId) => groupsByQueue.get(queueId)?.size ?? 0,
    connectedWorkers: (queueId) => workersByQueue.get(queueId) ?? 0,
  };
}

function addTo(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}
