/** Worker queues, groups, subscriptions and registration tokens as stored. */

export const SUBSCRIPTION_RECORD_MODES = ['STRICT', 'ELASTIC'] as const;
export type SubscriptionRecordMode = (typeof SUBSCRIPTION_RECORD_MODES)[number];

export interface WorkerQueueRecord {
  readonly id: string;
  readonly tags: string[];
  /** Empty: every tenant may use the queue. */
  readonly allowedTenants: string[];
  readonly description: string | null;
  /** `default` and `system`. */
  readonly reserved: boolean;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface WorkerQueueWrite {
  readonly id: string;
  readonly tags: string[];
  readonly allowedTenants?: string[];
  readonly description?: string | null;
}

export interface SubscriptionRecord {
  readonly workerGroupId: string;
  readonly workerQueueId: string;
  /** 1..100, or null for no reservation (shared pool only). */
  readonly reservedPercent: number | null;
  readonly mode: SubscriptionRecordMode;
}

export interface SubscriptionWrite {
  readonly workerQueueId: string;
  readonly reservedPercent?: number | null;
  readonly mode?: SubscriptionRecordMode;
}

/**
 * What happens to the jobs of a worker of the group that died (its stream ended
 * and no stream took them back): re-run once the adoption grace is over
 * (AFTER_TERMINATION_GRACE_PERIOD, the default), re-run as soon as the stream
 * ends (IMMEDIATELY: no wait for the worker to come back), or never re-run
 * (NEVER: the task run fails; for tasks that must not run twice).
 */
export const WORKER_RESTART_STRATEGIES = ['NEVER', 'IMMEDIATELY', 'AFTER_TERMINATION_GRACE_PERIOD'] as const;
export type WorkerRestartStrategy = (typeof WORKER_RESTART_STRATEGIES)[number];
export const DEFAULT_WORKER_RESTART_STRATEGY: WorkerRestartStrategy = 'AFTER_TERMINATION_GRACE_PERIOD';

export interface WorkerGroupRecord {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly restartStrategy: WorkerRestartStrategy;
  /** The `default` group. */
  readonly reserved: boolean;
  readonly subscriptions: SubscriptionRecord[];
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface WorkerGroupWrite {
  readonly id: string;
  readonly name: string;
  readonly description?: string | null;
  /** When given, replaces the group's restart strategy (a new group gets the default). */
  readonly restartStrategy?: WorkerRestartStrategy;
  /** When given, replaces the group's subscriptions as a whole. */
  readonly subscriptions?: SubscriptionWrite[];
}

/** A registration token without its value or hash: neither ever leaves the repository. */
export interface RegistrationTokenRecord {
  readonly id: string;
  readonly workerGroupId: string;
  readonly name: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
}

/** The outcome of an idempotent write (PUT): the stored entity and whether it is new. */
export interface PutOutcome<T> {
  readonly record: T;
  readonly created: boolean;
}
