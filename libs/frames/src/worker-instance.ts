/**
 * An anonymous worker names its persisted instance id in this gRPC metadata
 * entry when it opens a stream; the controller derives the worker's id from it,
 * so the worker keeps one identity across reconnects, restarts and controllers.
 * A worker with a token is known by its token and sends none.
 */
export const WORKER_INSTANCE_METADATA = 'lanner-worker-instance';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Whether `value` has the form of an instance id (a lower-case UUID); nothing else is taken. */
export function isWorkerInstanceId(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** The worker id a controller gives the anonymous worker of instance `instanceId`. */
export function anonymousWorkerId(instanceId: string): string {
  return `worker-${instanceId}`;
}
