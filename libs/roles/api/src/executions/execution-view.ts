import type {
  ExecutionRecord,
  ExecutionWithTaskRuns,
  RecordedStateChange,
  TaskRunAttemptRecord,
  TaskRunRecord,
} from '@lanner/model';
import { isTerminal, replayOrigin, type TaskRunState } from '@lanner/state-machine';

/** True once the execution reached a state it never leaves by itself. */
export function hasEnded(execution: Pick<ExecutionRecord, 'state'>): boolean {
  return isTerminal(execution.state as TaskRunState);
}

function iso(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}

function stateView<S extends string>(
  current: S,
  histories: readonly RecordedStateChange<S>[],
  startedAt?: Date | null,
  endedAt?: Date | null,
) {
  return {
    current,
    histories: histories.map((change) => ({ state: change.state, date: change.date.toISOString() })),
    startDate: iso(startedAt ?? histories[0]?.date ?? null),
    endDate: iso(endedAt ?? null),
  };
}

function attemptView(attempt: TaskRunAttemptRecord) {
  return {
    attempt: attempt.attempt,
    state: { current: attempt.state, startDate: iso(attempt.startedAt), endDate: iso(attempt.endedAt) },
    workerId: attempt.workerId,
    workerQueueId: attempt.workerQueueId,
    outputs: attempt.outputs ?? {},
    error: attempt.error,
  };
}

function taskRunView(taskRun: TaskRunRecord) {
  return {
    id: taskRun.id,
    executionId: taskRun.executionId,
    taskId: taskRun.taskId,
    parentTaskRunId: taskRun.parentTaskRunId,
    value: taskRun.value,
    state: stateView(taskRun.state, taskRun.stateHistories),
    outputs: taskRun.outputs ?? {},
    workerQueueId: taskRun.workerQueueId,
    dispatchReason: taskRun.dispatchReason,
    // The shape of an attempt's error, so a client reads both alike.
    error: taskRun.error === null ? null : { message: taskRun.error },
    attempts: taskRun.attempts.map(attemptView),
  };
}

/**
 * Kestra's `originalId`: the first execution of a CREATE_NEW_EXECUTION retry chain
 * (the executor writes it in the `trigger` of each retry it creates); an
 * execution's own id otherwise.
 */
function originalIdOf(execution: ExecutionRecord): string {
  const trigger = execution.trigger;
  if (trigger === null || typeof trigger !== 'object' || Array.isArray(trigger)) return execution.id;
  const { type, originalExecutionId } = trigger as Record<string, unknown>;
  return type === 'retry' && typeof originalExecutionId === 'string' ? originalExecutionId : execution.id;
}

/** A replay's origin: the execution it was made from and the task run it ran again from (null: from the start). */
function replayOfView(execution: ExecutionRecord): { executionId: string; taskRunId: string | null } | null {
  const origin = replayOrigin(execution.trigger);
  return origin === undefined ? null : { executionId: origin.executionId, taskRunId: origin.taskRunId ?? null };
}

function summaryOf(execution: ExecutionRecord) {
  return {
    id: execution.id,
    tenantId: execution.tenantId,
    namespace: execution.namespace,
    flowId: execution.flowId,
    flowRevision: execution.flowRevision,
    state: stateView(execution.state, execution.stateHistories, execution.startedAt, execution.endedAt),
    ended: hasEnded(execution),
    inputs: execution.inputs ?? {},
    outputs: execution.outputs ?? {},
    labels: execution.labels,
    parentExecutionId: execution.parentExecutionId,
    parentTaskRunId: execution.parentTaskRunId,
    originalId: originalIdOf(execution),
    replayOf: replayOfView(execution),
    version: execution.version,
    // Why the execution itself failed (a quarantine, a concurrency limit), shaped as a task run's error.
    error: execution.error === undefined || execution.error === null ? null : { message: execution.error },
    createdAt: execution.createdAt.toISOString(),
    updatedAt: execution.updatedAt.toISOString(),
  };
}

export type ExecutionSummaryView = ReturnType<typeof summaryOf>;
export type ExecutionDetailView = ExecutionSummaryView & { taskRunList: ReturnType<typeof taskRunView>[] };

/** An execution as the API shows it; with `taskRunList` when its task runs were read (not in search results). */
export function executionView(execution: ExecutionWithTaskRuns): ExecutionDetailView;
export function executionView(execution: ExecutionRecord): ExecutionSummaryView;
export function executionView(execution: ExecutionRecord | ExecutionWithTaskRuns): ExecutionSummaryView | ExecutionDetailView {
  const summary = summaryOf(execution);
  return 'taskRuns' in execution ? { ...summary, taskRunList: execution.taskRuns.map(taskRunView) } : summary;
}
