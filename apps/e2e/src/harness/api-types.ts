// The REST shapes a user sees (API.md), as far as the suite reads them. A state is
// Kestra's `{ current, histories }`; a bare string is accepted too, so that a shape
// mismatch shows up as a clear assertion on the state, not as a crash in the harness.

export type StateField = string | { readonly current: string };

export interface Attempt {
  readonly state: StateField;
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
}

export interface Execution {
  readonly id: string;
  readonly namespace: string;
  readonly flowId: string;
  readonly state: StateField;
  readonly taskRunList?: readonly TaskRun[] | null;
  readonly outputs?: Record<string, unknown> | null;
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
      .map((attempt, index) => `#${index + 1} ${stateOf(attempt)} worker=${attempt.workerId ?? '-'} queue=${attempt.workerQueueId ?? '-'}`)
      .join('; ');
    const value = run.value ? `[${run.value}]` : '';
    lines.push(`  ${run.taskId}${value}: ${stateOf(run)}${attempts ? ` (${attempts})` : ''}`);
  }
  if (execution.outputs && Object.keys(execution.outputs).length > 0) lines.push(`  outputs: ${JSON.stringify(execution.outputs)}`);
  return lines.join('\n');
}

export const TERMINAL_STATES = ['SUCCESS', 'WARNING', 'FAILED', 'KILLED', 'CANCELLED'] as const;
