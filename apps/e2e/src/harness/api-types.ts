// The REST shapes a user sees (API.md), as far as the suite reads them. A state is
// Kestra's `{ current, histories }`; a bare string is accepted too, so that a shape
// mismatch shows up as a clear assertion on the state, not as a crash in the harness.

export type StateField = string | { readonly current: string };

/** An error as the API gives it: `{ message }`; a bare string is accepted too. */
export type ErrorField = { readonly message: string } | string | null;

export interface Attempt {
  readonly error?: ErrorField;
  readonly state: string | { readonly current: string; readonly startDate?: string | null; readonly endDate?: string | null };
  readonly workerId?: string | null;
  readonly workerQueueId?: string | null;
  readonly outputs?: Record<string, unknown> | null;
}

export interface TaskRun {
  readonly id: string;
  readonly taskId: string;
  readonly parentTaskRunId?: string | null;
  readonly value?: string | null;
  readonly state: StateField;
  readonly attempts?: readonly Attempt[] | null;
  readonly outputs?: Record<string, unknown> | null;
  /** The queue the task run was routed to. */
  readonly workerQueueId?: string | null;
  /** Why it waits, or why it was refused (no queue matches, no worker connected...). */
  readonly dispatchReason?: string | null;
  /** Why it failed, when it says so itself (a flowable's timeout, a Fail task's message). */
  readonly error?: ErrorField;
}

export interface Execution {
  readonly id: string;
  readonly namespace: string;
  readonly flowId: string;
  readonly state: StateField;
  readonly taskRunList?: readonly TaskRun[] | null;
  readonly outputs?: Record<string, unknown> | null;
  readonly labels?: Record<string, string>;
  /** Why the execution itself failed, when it says so (a quarantine, a concurrency limit). */
  readonly error?: ErrorField;
}

export function stateOf(holder: { readonly state: StateField }): string {
  return typeof holder.state === 'string' ? holder.state : holder.state?.current;
}

export function taskRunsOf(execution: Execution, taskId?: string): TaskRun[] {
  const runs = execution.taskRunList ?? [];
  return taskId === undefined ? [...runs] : runs.filter((run) => run.taskId === taskId);
}

/** The one task run of `taskId`; fails naming what there is when there is not exactly one. */
export function onlyTaskRun(execution: Execution, taskId: string): TaskRun {
  const runs = taskRunsOf(execution, taskId);
  if (runs.length !== 1) {
    throw new Error(`expected one task run of '${taskId}', found ${runs.length}:\n${describeExecution(execution)}`);
  }
  return runs[0];
}

/** Outputs of a task run: on the task run, else on its last attempt. */
export function outputsOf(run: TaskRun): Record<string, unknown> {
  const attempts = run.attempts ?? [];
  return run.outputs ?? attempts[attempts.length - 1]?.outputs ?? {};
}

/** A compact picture of an execution for failure messages: where did it stop? */
export function describeExecution(execution: Execution): string {
  const lines = [`execution ${execution.id} (${execution.namespace}.${execution.flowId}): ${stateOf(execution)}`];
  for (const run of execution.taskRunList ?? []) {
    const attempts = (run.attempts ?? [])
      .map(
        (attempt, index) =>
          `#${index + 1} ${stateOf(attempt)} worker=${attempt.workerId ?? '-'} queue=${attempt.workerQueueId ?? '-'}`,
      )
      .join('; ');
    const value = run.value ? `[${run.value}]` : '';
    lines.push(`  ${run.taskId}${value}: ${stateOf(run)}${attempts ? ` (${attempts})` : ''}`);
  }
  if (execution.outputs && Object.keys(execution.outputs).length > 0)
    lines.push(`  outputs: ${JSON.stringify(execution.outputs)}`);
  return lines.join('\n');
}

export const TERMINAL_STATES = ['SUCCESS', 'WARNING', 'FAILED', 'KILLED', 'CANCELLED'] as const;

// Worker topology (API.md "Worker topology").

export interface SubscriptionSpec {
  readonly workerQueueId: string;
  readonly reservedPercent?: number;
  readonly mode?: 'STRICT' | 'ELASTIC';
}

export interface RegistrationToken {
  readonly id: string;
  readonly name: string;
  /** Shown only in the answer that created it. */
  readonly token: string;
}

/** A connected worker as `GET /instance/worker-groups/{id}/workers` lists it. */
export interface ConnectedWorker {
  readonly id: string;
  readonly name: string;
  /** The controller instance holding its stream. */
  readonly controller: string;
  readonly slots: number;
  /** CONNECTED or DRAINING. */
  readonly state: string;
  readonly draining: boolean;
  readonly queues?: readonly string[];
}

/** One subscription's share of one worker's slots (the capacity ledger). */
export interface SubscriptionCapacityView {
  readonly workerQueueId: string;
  readonly mode?: string;
  readonly reservedPercent?: number;
  readonly reserved: number;
  readonly used: number;
  readonly borrowed: number;
  readonly lent: number;
  readonly waiting?: number;
}

/** One worker's live ledger as `GET /instance/worker-groups/{id}/capacity` shows it. */
export interface WorkerCapacity {
  readonly workerId: string;
  readonly name: string;
  readonly slots: number;
  /** CONNECTED or DRAINING. */
  readonly state?: string;
  readonly reserved?: number;
  readonly used?: number;
  readonly borrowed?: number;
  readonly lent?: number;
  readonly waiting?: number;
  readonly subscriptions: readonly SubscriptionCapacityView[];
}

/** The list in an answer: the body itself, or the first of `keys` (fields of the body) that holds an array. */
export function listIn<T>(body: unknown, keys: readonly string[]): T[] {
  if (Array.isArray(body)) return body as T[];
  if (typeof body === 'object' && body !== null) {
    for (const key of keys) {
      const value = (body as Record<string, unknown>)[key];
      if (Array.isArray(value)) return value as T[];
    }
  }
  throw new Error(`expected a list (or an object with one of ${keys.join(', ')}), got: ${JSON.stringify(body).slice(0, 500)}`);
}

/** The subscription of `queueId` in a worker's ledger; fails naming what there is. */
export function subscriptionIn(worker: WorkerCapacity, queueId: string): SubscriptionCapacityView {
  const found = worker.subscriptions.find((one) => one.workerQueueId === queueId);
  if (!found) throw new Error(`no subscription to '${queueId}' in the ledger: ${JSON.stringify(worker).slice(0, 1000)}`);
  return found;
}

/** The last attempt of a task run (the one that counts), if it has any. */
export function lastAttempt(run: TaskRun): Attempt | undefined {
  const attempts = run.attempts ?? [];
  return attempts[attempts.length - 1];
}

/** Whether a worker began running the task run: an attempt that has a start date or is past SUBMITTED. */
export function hasStarted(run: TaskRun): boolean {
  return (
    (run.attempts ?? []).some((attempt) => {
      const startDate = typeof attempt.state === 'object' ? attempt.state.startDate : undefined;
      return Boolean(startDate) || !['CREATED', 'SUBMITTED'].includes(stateOf(attempt));
    }) || !['CREATED', 'SUBMITTED'].includes(stateOf(run))
  );
}

function messageOf(error: ErrorField | undefined): string | undefined {
  return typeof error === 'string' ? error : (error?.message ?? undefined);
}

/** Everything the API says about why a task run waits, was refused or failed. */
export function reasonOf(run: TaskRun): string {
  return [run.dispatchReason, messageOf(run.error), ...(run.attempts ?? []).map((attempt) => messageOf(attempt.error))]
    .filter((text): text is string => typeof text === 'string' && text !== '')
    .join(' | ');
}
