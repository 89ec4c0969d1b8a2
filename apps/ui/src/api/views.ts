import type { paths } from './schema';

// The bodies the UI reads. Where the OpenAPI document describes a body (the
// instance routes), its type is taken from the generated schema; the flow,
// execution and log routes describe theirs in prose only, so their shapes are
// spelled out here, as the API documents them (README, API reference).

type JsonOk<P extends keyof paths, M extends 'get' | 'post' | 'put'> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer J } } };
}
  ? J
  : paths[P][M] extends { responses: { 201: { content: { 'application/json': infer J } } } }
    ? J
    : never;

export type WorkerQueue = JsonOk<'/api/v1/instance/worker-queues', 'get'>[number];
export type WorkerGroup = JsonOk<'/api/v1/instance/worker-groups', 'get'>[number];
export type ConnectedWorker = JsonOk<'/api/v1/instance/worker-groups/{id}/workers', 'get'>[number];
export type GroupCapacity = JsonOk<'/api/v1/instance/worker-groups/{id}/capacity', 'get'>;
export type WorkerCapacity = NonNullable<GroupCapacity['workers']>[number];
export type RegistrationToken = JsonOk<'/api/v1/instance/worker-groups/{id}/tokens', 'get'>[number];
export type NewRegistrationToken = JsonOk<'/api/v1/instance/worker-groups/{id}/tokens', 'post'>;
export type ServiceInstance = JsonOk<'/api/v1/instance/services', 'get'>[number];

export interface Page<T> {
  readonly results: T[];
  readonly total: number;
}

export interface FlowInput {
  readonly id: string;
  readonly type: string;
  readonly required?: boolean;
  readonly defaults?: unknown;
  readonly description?: string;
  readonly values?: string[];
}

export interface Flow {
  readonly id: string;
  readonly namespace: string;
  readonly revision: number;
  readonly source: string;
  readonly updated: string;
  readonly description?: string;
  readonly inputs?: FlowInput[];
  readonly tasks?: { id: string; type: string }[];
}

export interface StateView {
  readonly current: string;
  readonly histories: { state: string; date: string }[];
  readonly startDate: string | null;
  readonly endDate: string | null;
}

export interface Attempt {
  readonly attempt: number;
  readonly state: { current: string; startDate: string | null; endDate: string | null };
  readonly workerId: string | null;
  readonly workerQueueId: string | null;
  readonly outputs: Record<string, unknown>;
  readonly error: unknown;
}

export interface TaskRun {
  readonly id: string;
  readonly taskId: string;
  readonly parentTaskRunId: string | null;
  readonly value: string | null;
  readonly state: StateView;
  readonly outputs: Record<string, unknown>;
  readonly workerQueueId: string | null;
  readonly dispatchReason: string | null;
  readonly error: { message: string } | null;
  readonly attempts: Attempt[];
}

export interface Execution {
  readonly id: string;
  readonly namespace: string;
  readonly flowId: string;
  readonly flowRevision: number;
  readonly state: StateView;
  readonly ended: boolean;
  readonly inputs: Record<string, unknown>;
  readonly outputs: Record<string, unknown>;
  readonly labels: unknown;
  readonly createdAt: string;
  /** A replay: the execution it was made from and the task run of it that ran again (null: the whole flow). */
  readonly replayOf?: { readonly executionId: string; readonly taskRunId: string | null } | null;
  readonly taskRunList?: TaskRun[];
}

export interface LogLine {
  readonly taskRunId: string | null;
  readonly attempt: number | null;
  readonly level: string;
  readonly timestamp: string;
  readonly message: string;
}

export type ExecutionStats = JsonOk<'/api/v1/{tenant}/executions/stats', 'get'>;
