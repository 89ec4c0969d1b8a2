// The render context of FLOWS.md ("Expressions") for one task run. `outputs` is
// materialised only when a template reads it (a getter), so evaluating a
// condition does not cost O(number of finished task runs).
import type { Flow } from '@lanner/model';
import { taskById, UnknownTask } from './flow-index';
import type { PersistentMap } from './persistent-map';
import type { RenderContext } from './render';
import type { Execution, JsonObject, TaskOutputEntry, TaskRun } from './types';

export interface ContextSource {
  readonly flow: Flow;
  readonly execution: Pick<
    Execution,
    'id' | 'tenant' | 'inputs' | 'variables' | 'histories' | 'parent' | 'flowRevision' | 'originalExecutionId'
  >;
  readonly labels: Readonly<Record<string, string>>;
  readonly taskOutputs: PersistentMap<TaskOutputEntry>;
  /** Kestra's `envs` (the instance's ENV_-prefixed variables) and `globals` (instance-wide variables); empty when not given. */
  readonly envs?: Readonly<Record<string, string>>;
  /** Visits every task run of the execution as it stands (Kestra's `tasks.<taskId>.state`). */
  readonly eachTaskRun?: (visit: (run: TaskRun) => void) => void;
  readonly globals?: Readonly<Record<string, unknown>>;
}

const SYSTEM_PREFIX = 'system.';

/** Labels as Kestra's context shows them: each key as given, and `system.*` labels also under `labels.system`. */
function labelsView(labels: Readonly<Record<string, string>>): Record<string, unknown> {
  const view: Record<string, unknown> = { ...labels };
  const system = Object.entries(labels).filter(([key]) => key.startsWith(SYSTEM_PREFIX));
  if (system.length > 0 && !Object.hasOwn(labels, 'system')) {
    view['system'] = Object.fromEntries(system.map(([key, value]) => [key.slice(SYSTEM_PREFIX.length), value]));
  }
  return view;
}

function iso(at: number | undefined): string {
  return new Date(at ?? 0).toISOString();
}

/**
 * The render context of one task run, as Kestra's RunVariables builds it: `flow`,
 * `execution`, `task`, `taskrun`, `parents`/`parent`, `labels`, `trigger`, `vars`,
 * `inputs`, `outputs`, `envs`, `globals`.
 */
export function buildContext(source: ContextSource, taskRun?: TaskRun): RenderContext {
  const { flow, execution } = source;
  let outputs: Record<string, unknown> | undefined;
  const context: RenderContext = {
    flow: { id: flow.id, namespace: flow.namespace, revision: execution.flowRevision, tenantId: execution.tenant },
    execution: {
      id: execution.id,
      startDate: iso(execution.histories[0]?.at),
      // The first execution of a CREATE_NEW_EXECUTION retry chain; its own id otherwise.
      originalId: execution.originalExecutionId ?? execution.id,
    },
    inputs: execution.inputs,
    vars: execution.variables,
    labels: labelsView(source.labels),
    envs: source.envs ?? {},
    globals: source.globals ?? {},
  };
  // Kestra's subflow child: the trigger is the parent execution.
  if (execution.parent !== undefined) {
    context['trigger'] = {
      executionId: execution.parent.executionId,
      namespace: execution.parent.namespace,
      flowId: execution.parent.flowId,
    };
  }
  Object.defineProperty(context, 'outputs', {
    enumerable: true,
    get: () => (outputs ??= materialiseOutputs(source.taskOutputs)),
  });
  const eachTaskRun = source.eachTaskRun;
  if (eachTaskRun !== undefined) {
    let tasks: Record<string, unknown> | undefined;
    Object.defineProperty(context, 'tasks', {
      enumerable: true,
      get: () => (tasks ??= taskStates(eachTaskRun)),
    });
  }
  if (taskRun !== undefined) {
    const task = taskIfKnown(flow, taskRun.taskId);
    if (task !== undefined) context['task'] = { id: task.id, type: task.type };
    const taskrun: Record<string, unknown> = {
      id: taskRun.id,
      taskId: taskRun.taskId,
      startDate: iso(taskRun.histories[0]?.at),
      // Attempts before this one: 0 on the first attempt (the current one has not ended).
      attemptsCount: taskRun.attempts.filter((attempt) => attempt.endedAt !== undefined).length,
    };
    if (taskRun.parentTaskRunId !== undefined) taskrun['parentId'] = taskRun.parentTaskRunId;
    if (taskRun.value !== undefined) taskrun['value'] = taskRun.value;
    if (taskRun.iteration !== undefined) taskrun['iteration'] = taskRun.iteration;
    context['taskrun'] = taskrun;
    // Kestra's `parents`: the enclosing ForEach values, innermost first; `parent` is the first.
    const values = taskRun.forEachValues ?? [];
    const ownValue = taskRun.value;
    const enclosing = ownValue === undefined ? values : values.slice(0, -1);
    const parents = enclosing
      .slice()
      .reverse()
      .map((value) => ({ taskrun: { value } }));
    context['parents'] = parents;
    if (parents.length > 0) context['parent'] = parents[0];
  }
  return context;
}

/** Kestra's `tasks`: `tasks.<taskId>.state`, or `tasks.<taskId>.<value>.state` for task runs of a ForEach value. */
function taskStates(eachTaskRun: (visit: (run: TaskRun) => void) => void): Record<string, unknown> {
  const tasks: Record<string, Record<string, unknown>> = {};
  eachTaskRun((run) => {
    const entry = (tasks[run.taskId] ??= {});
    if (run.value === undefined) entry['state'] = run.state;
    else entry[run.value] = { state: run.state };
  });
  return tasks;
}

function taskIfKnown(flow: Flow, taskId: string): { id: string; type: string } | undefined {
  try {
    return taskById(flow, taskId);
  } catch (error) {
    if (error instanceof UnknownTask) return undefined;
    throw error;
  }
}

/** `outputs.<taskId>` and, inside ForEach, `outputs.<taskId>[value]...` (one level per enclosing ForEach). */
export function materialiseOutputs(taskOutputs: PersistentMap<TaskOutputEntry>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  taskOutputs.forEach((entry) => {
    if (entry.forEachValues.length === 0) {
      out[entry.taskId] = entry.outputs;
      return;
    }
    let level = (out[entry.taskId] ??= {}) as Record<string, unknown>;
    const values = entry.forEachValues;
    for (let i = 0; i < values.length - 1; i++) {
      level = (level[values[i] as string] ??= {}) as Record<string, unknown>;
    }
    level[values[values.length - 1] as string] = entry.outputs;
  });
  return out;
}

export function outputKey(taskId: string, forEachValues: readonly string[] | undefined): string {
  return forEachValues === undefined || forEachValues.length === 0 ? taskId : `${taskId}\u0000${forEachValues.join('\u0000')}`;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
