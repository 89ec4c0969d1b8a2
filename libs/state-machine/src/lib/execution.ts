// Creating an execution value, reading its task runs, and its plain-data form
// for the repository (the executor persists an execution as a whole).
import type { Flow } from '@lanner/model';
import { outputKey } from './context';
import { EMPTY_PROGRESS } from './progress';
import { PersistentMap } from './persistent-map';
import { isTerminal } from './states';
import type { Execution, JsonObject, Millis, ParentExecutionRef, TaskOutputEntry, TaskRun } from './types';

export interface NewExecution {
  readonly id: string;
  readonly tenant: string;
  readonly inputs?: JsonObject;
  readonly labels?: Readonly<Record<string, string>>;
  readonly parent?: ParentExecutionRef;
  /** The trigger's variables (`trigger.*`). */
  readonly trigger?: JsonObject;
  /** CREATE_NEW_EXECUTION retries: from the `create-retry-execution` action. */
  readonly retryAttempt?: number;
  readonly originalExecutionId?: string;
}

/** A new execution in CREATED; feed it the `created` event to start it. */
export function createExecution(flow: Flow, init: NewExecution, now: Millis): Execution {
  return {
    id: init.id,
    tenant: init.tenant,
    namespace: flow.namespace,
    flowId: flow.id,
    flowRevision: flow.revision ?? 1,
    state: 'CREATED',
    histories: [{ state: 'CREATED', at: now }],
    inputs: init.inputs ?? {},
    labels: { ...flow.labels, ...(init.labels ?? {}) },
    variables: flow.variables,
    ...(init.parent !== undefined ? { parent: init.parent } : {}),
    ...(init.trigger !== undefined ? { trigger: init.trigger } : {}),
    retryAttempt: init.retryAttempt ?? 1,
    ...(init.originalExecutionId !== undefined ? { originalExecutionId: init.originalExecutionId } : {}),
    version: 0,
    taskRuns: PersistentMap.empty<TaskRun>(),
    liveTaskRuns: PersistentMap.empty<true>(),
    taskOutputs: PersistentMap.empty<TaskOutputEntry>(),
    root: EMPTY_PROGRESS,
    nextSeq: 0,
  };
}

/** All task runs in creation order. O(n): for listing and persistence, not for the hot path. */
export function listTaskRuns(execution: Execution): TaskRun[] {
  return execution.taskRuns.values().sort((a, b) => a.seq - b.seq);
}

export function getTaskRun(execution: Execution, taskRunId: string): TaskRun | undefined {
  return execution.taskRuns.get(taskRunId);
}

/** The execution as plain JSON-able data (maps become a task-run list). */
export type ExecutionData = Omit<Execution, 'taskRuns' | 'liveTaskRuns' | 'taskOutputs'> & {
  readonly taskRuns: readonly TaskRun[];
};

export function executionToData(execution: Execution): ExecutionData {
  const { taskRuns: _taskRuns, liveTaskRuns: _live, taskOutputs: _outputs, ...rest } = execution;
  return { ...rest, taskRuns: listTaskRuns(execution) };
}

/** Rebuilds the maps from the task-run list; `taskOutputs` is derived from the task runs' outputs. */
export function executionFromData(data: ExecutionData): Execution {
  const { taskRuns: list, ...rest } = data;
  let taskRuns = PersistentMap.empty<TaskRun>();
  let live = PersistentMap.empty<true>();
  let taskOutputs = PersistentMap.empty<TaskOutputEntry>();
  for (const run of [...list].sort((a, b) => a.seq - b.seq)) {
    taskRuns = taskRuns.set(run.id, run);
    if (!isTerminal(run.state)) live = live.set(run.id, true);
    if (run.outputs !== undefined && (run.state === 'SUCCESS' || run.state === 'WARNING')) {
      taskOutputs = taskOutputs.set(outputKey(run.taskId, run.forEachValues), {
        taskId: run.taskId,
        forEachValues: run.forEachValues ?? [],
        outputs: run.outputs,
      });
    }
  }
  return { ...rest, taskRuns, liveTaskRuns: live, taskOutputs };
}
