// Subflow: starts a child execution (`start-subflow`). Without `wait` it
// succeeds at once with the child's id; with it, it runs until the child ends
// (`subflow-ended`: its outcome, FAILED when the child did not succeed and
// `transmitFailed`) or its own `timeout` (the child is killed, it fails).
// Each start (first run, every restart) starts a new child with its own id and
// numbers its timeout timer.
import { coerceInputs, CORRELATION_ID_LABEL, formatProblem, type Flow, type SubflowTask } from '@lanner/model';
import { formatDuration } from '../attempts';
import { hashString } from '../persistent-map';
import { renderAny, renderFailure } from '../render';
import { copyRun } from '../shapes';
import type { ExecutionState } from '../states';
import type { ExecutionAction, ExecutionEvent, JsonObject, Outcome, SubflowTriggerVariables, TaskRun } from '../types';
import type { FlowableStep, LeafRules } from './flowable';

/** A Subflow's start: 1, one more per restart. Numbers its child execution and its timeout timer. */
export function subflowRound(run: TaskRun): number {
  return run.histories.filter((change) => change.state === 'RESTARTED').length + 1;
}

function childExecutionId(executionId: string, taskRunId: string, attempt: number): string {
  // Two independent 32-bit hashes keep the id short yet practically unique within one parent.
  const a = hashString(`${taskRunId}#${attempt}`).toString(36);
  const b = hashString(`${attempt}#${taskRunId}`).toString(36);
  return `${executionId}-sub-${a}${b}`;
}

function correlationIdOf(labels: unknown): string | undefined {
  if (labels === null || typeof labels !== 'object') return undefined;
  const value = (labels as Record<string, unknown>)[CORRELATION_ID_LABEL];
  return typeof value === 'string' ? value : undefined;
}

/** The child's `trigger` (see SubflowTriggerVariables); `taskrun` is the Subflow task run's `taskrun` variable. */
function subflowTriggerVariables(step: FlowableStep, run: TaskRun, taskrun: unknown): SubflowTriggerVariables {
  const iteration =
    taskrun !== null && typeof taskrun === 'object' ? (taskrun as Record<string, unknown>)['iteration'] : undefined;
  return {
    executionId: step.executionId,
    namespace: step.flow.namespace,
    flowId: step.flow.id,
    flowRevision: step.flowRevision,
    taskRunId: run.id,
    taskId: run.taskId,
    ...(run.value !== undefined ? { taskRunValue: run.value } : {}),
    ...(typeof iteration === 'number' ? { taskRunIteration: iteration } : {}),
  };
}

export const subflowRules: LeafRules<SubflowTask> = {
  hasChildren: false,
  run(task, step, run) {
    const options = step.renderOptions;
    const context = step.context(run);
    const inputs = renderAny(task.inputs ?? {}, context, options) as JsonObject;
    // The child shares the parent's correlation id (Kestra's system.correlationId).
    const labels = {
      ...(renderAny(task.labels ?? {}, context, options) as Record<string, string>),
      [CORRELATION_ID_LABEL]: correlationIdOf(context['labels']) ?? step.executionId,
    };
    // A restarted Subflow starts a new child execution: the restart count is part of its id.
    const executionId = childExecutionId(step.executionId, run.id, subflowRound(run) - 1);
    const parent = { executionId: step.executionId, taskRunId: run.id, namespace: step.flow.namespace, flowId: step.flow.id };
    step.emit({
      type: 'start-subflow',
      taskRunId: run.id,
      executionId,
      namespace: task.namespace,
      flowId: task.flowId,
      ...(task.revision !== undefined ? { revision: task.revision } : {}),
      inputs,
      labels,
      parent,
      trigger: subflowTriggerVariables(step, run, context['taskrun']),
      wait: task.wait,
    });
    const started = step.putRun(copyRun(run, { subflowExecutionId: executionId }));
    if (task.wait) {
      if (task.timeoutMs !== undefined) step.scheduleTimer(run.id, 'task-timeout', subflowRound(run), step.now + task.timeoutMs);
      return started.state;
    }
    // Kestra: without waiting, the task ends at once with the child's id and the state it was created in; no outputs.
    const ended = step.finishRun(started, task, 'SUCCESS', { outputs: { executionId, state: 'CREATED' } });
    step.recordOutputs(ended);
    return ended.state;
  },
  kill(task, step, run) {
    if (run.subflowExecutionId !== undefined) step.emit({ type: 'kill-subflow', executionId: run.subflowExecutionId });
    step.cancelTimer(run.id, 'task-timeout', subflowRound(run), task.timeoutMs !== undefined);
    return step.moveRun(step.moveRun(run, 'KILLING'), 'KILLED');
  },
  timedOut(task, step, run, round) {
    if (run.state !== 'RUNNING' || step.halted || subflowRound(run) !== round || run.subflowExecutionId === undefined)
      return undefined;
    step.emit({ type: 'kill-subflow', executionId: run.subflowExecutionId });
    const error = `Timed out after ${formatDuration(task.timeoutMs ?? 0)}: the subflow execution '${run.subflowExecutionId}' had not ended`;
    return step.finishRun(run, task, 'FAILED', { error });
  },
};

type StartSubflow = Extract<ExecutionAction, { type: 'start-subflow' }>;

/** What starting a Subflow's child gives: the child's checked inputs, or the parent's `subflow-ended` event. */
export type SubflowChildStart =
  | { readonly ok: true; readonly inputs: JsonObject }
  | { readonly ok: false; readonly refused: Extract<ExecutionEvent, { type: 'subflow-ended' }> };

/**
 * A Subflow's child gets its inputs checked and defaulted against its own flow
 * like any execution. Inputs that do not match refuse the child: the Subflow
 * task fails with the problems (no child ran, so even without transmitFailed).
 */
export function startSubflowChild(child: Pick<Flow, 'namespace' | 'id' | 'inputs'>, action: StartSubflow): SubflowChildStart {
  const inputs = coerceInputs(child.inputs, action.inputs);
  if (inputs.ok) return { ok: true, inputs: inputs.values as JsonObject };
  const error = `The inputs do not match the flow ${child.namespace}.${child.id}: ${inputs.problems.map(formatProblem).join('; ')}`;
  return {
    ok: false,
    refused: { type: 'subflow-ended', taskRunId: action.taskRunId, executionId: action.executionId, state: 'FAILED', error },
  };
}

/** How a Subflow's child ended, as the `subflow-ended` event tells it. */
export interface SubflowChildEnd {
  readonly executionId: string;
  readonly childState: ExecutionState;
  /** The child flow's own outputs. */
  readonly outputs?: JsonObject;
  /** Why the child could not start. */
  readonly startError?: string;
  /** The child's context, for the deprecated `outputs` map (see the event). */
  readonly childContext?: Readonly<Record<string, unknown>>;
}

/**
 * Its child execution ended: it ends with the child's outcome and outputs.
 * Kestra's deprecated `outputs` map, when the child's flow declares none, is
 * rendered against the child (`outputs.<childTask>…`, the child's `inputs`,
 * `execution.id`…) and becomes `outputs.<task>.outputs`; a map that does not
 * render fails the task (allowFailure applies). Returns it ended.
 */
export function subflowChildEnded(task: SubflowTask, step: FlowableStep, run: TaskRun, end: SubflowChildEnd): TaskRun {
  const { executionId, childState, startError, childContext } = end;
  step.cancelTimer(run.id, 'task-timeout', subflowRound(run), task.timeoutMs !== undefined);
  let outcome: Outcome = 'SUCCESS';
  let error: string | undefined;
  if (startError !== undefined) {
    // A child that could not start fails the task whatever transmitFailed says: nothing ran.
    return step.finishRun(run, task, 'FAILED', { error: startError });
  }
  let outputs = end.outputs;
  if (outputs === undefined && task.outputs !== undefined && childContext !== undefined) {
    try {
      outputs = renderAny(task.outputs, { ...childContext }, step.renderOptions) as JsonObject;
    } catch (failure) {
      const failed = step.finishRun(run, task, 'FAILED', {
        outputs: { executionId, state: childState },
        error: `outputs: ${renderFailure(failure)}`,
      });
      step.recordOutputs(failed);
      return failed;
    }
  }
  if (childState === 'WARNING') outcome = 'WARNING';
  else if (childState !== 'SUCCESS' && task.transmitFailed) {
    outcome = 'FAILED';
    error = `The subflow execution '${executionId}' ended ${childState}`;
  }
  // Kestra's shape is `outputs.<task>.outputs.<name>`; the child's outputs also stay
  // at the top level, where earlier Lanner flows read them.
  const taskOutputs = { ...(outputs ?? {}), executionId, state: childState, ...(outputs !== undefined ? { outputs } : {}) };
  const ended = step.finishRun(run, task, outcome, { outputs: taskOutputs, error });
  step.recordOutputs(ended);
  return ended;
}
