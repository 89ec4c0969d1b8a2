import type { paths } from './schema';

// The bodies the UI reads, as the generated OpenAPI types describe them (the
// API's answers are documented from the schemas its views are typed by).

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

/**
 * A flow: the API documents its identity, revision and source; the fields parsed
 * from its YAML come as written there, so the ones the UI reads are spelled out.
 */
export type Flow = JsonOk<'/api/v1/{tenant}/flows/{namespace}/{id}', 'get'> & {
  readonly description?: string;
  readonly inputs?: FlowInput[];
  readonly tasks?: { id: string; type: string }[];
};

/** An execution; `taskRunList` is absent from search results. */
export type Execution = ExecutionSummary & Partial<Pick<ExecutionDetail, 'taskRunList'>>;
type ExecutionSummary = JsonOk<'/api/v1/{tenant}/executions/search', 'get'>['results'][number];
type ExecutionDetail = JsonOk<'/api/v1/{tenant}/executions/{id}', 'get'>;
export type TaskRun = ExecutionDetail['taskRunList'][number];
export type StateView = Execution['state'];
export type Attempt = TaskRun['attempts'][number];

export type LogLine = JsonOk<'/api/v1/{tenant}/logs/{executionId}', 'get'>[number];

export type ExecutionStats = JsonOk<'/api/v1/{tenant}/executions/stats', 'get'>;
