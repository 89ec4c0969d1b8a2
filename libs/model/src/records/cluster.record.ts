import type { StoredJson } from './states';

export const SERVICE_RECORD_ROLES = ['API', 'EXECUTOR', 'CONTROLLER', 'WORKER', 'SCHEDULER', 'INDEXER', 'STANDALONE'] as const;
export type ServiceRecordRole = (typeof SERVICE_RECORD_ROLES)[number];

/** RUNNING -> DISCONNECTED -> NOT_RUNNING is driven by the liveness coordinator. */
export const SERVICE_INSTANCE_RECORD_STATES = [
  'CREATED',
  'RUNNING',
  'MAINTENANCE',
  'DISCONNECTED',
  'TERMINATING',
  'TERMINATED',
  'NOT_RUNNING',
] as const;
export type ServiceInstanceRecordState = (typeof SERVICE_INSTANCE_RECORD_STATES)[number];

export interface ServiceInstanceRecord {
  readonly id: string;
  readonly role: ServiceRecordRole;
  readonly host: string;
  readonly state: ServiceInstanceRecordState;
  readonly startedAt: Date;
  readonly heartbeatAt: Date;
  readonly stateChangedAt: Date;
  readonly metadata: StoredJson;
}

export interface ServiceInstanceRegistration {
  readonly id: string;
  readonly role: ServiceRecordRole;
  readonly host: string;
  readonly metadata?: StoredJson;
}

/** A job a controller has sent to a worker and whose result is not recorded yet. */
export interface RunningJobRecord {
  readonly taskRunId: string;
  readonly attempt: number;
  readonly tenantId: string;
  readonly executionId: string;
  readonly workerQueueId: string;
  readonly workerId: string;
  readonly controllerInstanceId: string;
  /** The job exactly as taken from the queue, so it can be put back unchanged. */
  readonly job: StoredJson;
  readonly dispatchedAt: Date;
}

/**
 * One open worker stream as its controller publishes it (the live worker
 * registry). `capacity` is the controller's ledger snapshot for the worker
 * (a @lanner/capacity CapacitySnapshot, stored as JSON).
 */
export interface ConnectedWorkerRecord {
  readonly workerId: string;
  readonly workerGroupId: string;
  readonly workerName: string;
  readonly controllerInstanceId: string;
  readonly registrationTokenId: string | null;
  readonly slots: number;
  readonly draining: boolean;
  readonly queueIds: readonly string[];
  readonly capacity: StoredJson;
  readonly labels: StoredJson;
  readonly connectedAt: Date;
  readonly heartbeatAt: Date;
}

/** What a controller writes for a stream; `heartbeatAt` is the write time. */
export type ConnectedWorkerWrite = Omit<ConnectedWorkerRecord, 'heartbeatAt'>;
