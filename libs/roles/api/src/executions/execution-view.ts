import {
  EXECUTION_RECORD_STATES,
  type ExecutionRecord,
  type ExecutionWithTaskRuns,
  type RecordedStateChange,
  TASK_RUN_RECORD_STATES,
  type TaskRunAttemptRecord,
  type TaskRunRecord,
} from '@lanner/model';
import { isTerminal, replayOrigin, type TaskRunState } from '@lanner/state-machine';
import { z } from 'zod';
import { instant, pageOf, storedJson } from '../openapi/zod-openapi';

// What the execution routes answer; the OpenAPI document, and so the UI's types, are generated from it.

const stateSchema = <S extends readonly [string, ...string[]]>(states: S) =>
  z.object({
    current: z.enum(states),
    histories: z
      .array(z.object({ state: z.enum(states), date: instant() }))
      .describe('Every state it went through, oldest first'),
    startDate: instant().nullable(),
    endDate: instant().nullable(),
  });

const ErrorViewSchema = z.object({ message: z.string() }).nullable();

const AttemptViewSchema = z.object({
  attempt: z.number().int().min(1),
  state: z.object({ current: z.enum(TASK_RUN_RECORD_STATES), startDate: instant().nullable(), endDate: instant().nullable() }),
  workerId: z.string().nullable(),
  workerQueueId: z.string().nullable(),
  outputs: storedJson({ type: 'object', description: 'What the attempt produced' }),
  error: storedJson({ type: 'object', nullable: true, description: 'What the user is shown about its failure: `{ message }`' }),
});

const TaskRunViewSchema = z.object({
  id: z.string(),
  executionId: z.string(),
  taskId: z.string(),
  parentTaskRunId: z.string().nullable(),
  value: z.string().nullable().describe('The ForEach value this run iterates on'),
  state: stateSchema(TASK_RUN_RECORD_STATES),
  outputs: storedJson({ type: 'object' }),
  workerQueueId: z.string().nullable(),
  dispatchReason: z.string().nullable().describe('Why it waits or went where it went'),
  error: ErrorViewSchema.describe('Why it failed (or ended in WARNING)'),
  attempts: z.array(AttemptViewSchema),
});

export const ExecutionSummaryViewSchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  namespace: z.string(),
  flowId: z.string(),
  flowRevision: z.number().int(),
  state: stateSchema(EXECUTION_RECORD_STATES),
  ended: z.boolean().describe('In a state it never leaves by itself'),
  inputs: storedJson({ type: 'object', description: 'The values of the flow inputs, by input id' }),
  outputs: storedJson({ type: 'object' }),
  labels: z.record(z.string(), z.string()),
  parentExecutionId: z.string().nullable(),
  parentTaskRunId: z.string().nullable(),
  originalId: z.string().describe('The first execution of a retry chain; its own id otherwise'),
  replayOf: z
    .object({
      executionId: z.string(),
      taskRunId: z.string().nullable().describe('The task run it ran again from; null: the whole flow'),
    })
    .nullable()
    .describe('A replay: the execution it was made from'),
  version: z.number().int(),
  error: ErrorViewSchema.describe('Why the execution itself failed (a quarantine, a concurrency limit)'),
  createdAt: instant(),
  updatedAt: instant(),
});

export const ExecutionDetailViewSchema = ExecutionSummaryViewSchema.extend({
  taskRunList: z.array(TaskRunViewSchema).describe('Its task runs with their attempts'),
});

/** A search's page: executions without their task runs. */
export const ExecutionPageSchema = pageOf(ExecutionSummaryViewSchema);

export type ExecutionSummaryView = z.output<typeof ExecutionSummaryViewSchema>;
export type ExecutionDetailView = z.output<typeof ExecutionDetailViewSchema>;

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
): { current: S; histories: { state: S; date: string }[]; startDate: string | null; endDate: string | null } {
  return {
    current,
    histories: histories.map((change) => ({ state: change.state, date: change.date.toISOString() })),
    startDate: iso(startedAt ?? histories[0]?.date ?? null),
    endDate: iso(endedAt ?? null),
  };
}

function attemptView(attempt: TaskRunAttemptRecord): z.output<typeof AttemptViewSchema> {
  return {
    attempt: attempt.attempt,
    state: { current: attempt.state, startDate: iso(attempt.startedAt), endDate: iso(attempt.endedAt) },
    workerId: attempt.workerId,
    workerQueueId: attempt.workerQueueId,
    outputs: attempt.outputs ?? {},
    error: attempt.error,
  };
}

function taskRunView(taskRun: TaskRunRecord): z.output<typeof TaskRunViewSchema> {
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

function summaryOf(execution: ExecutionRecord): ExecutionSummaryView {
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

/** An execution as the API shows it; with `taskRunList` when its task runs were read (not in search results). */
export function executionView(execution: ExecutionWithTaskRuns): ExecutionDetailView;
export function executionView(execution: ExecutionRecord): ExecutionSummaryView;
export function executionView(execution: ExecutionRecord | ExecutionWithTaskRuns): ExecutionSummaryView | ExecutionDetailView {
  const summary = summaryOf(execution);
  return 'taskRuns' in execution ? { ...summary, taskRunList: execution.taskRuns.map(taskRunView) } : summary;
}
