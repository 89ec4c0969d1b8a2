// The render context of FLOWS.md ("Expressions") for one task run. `outputs` is
// materialised only when a template reads it (a getter), so evaluating a
// condition does not cost O(number of finished task runs).
import type { Flow, Task } from '@lanner/model';
import { taskById, UnknownTask } from './flow-index';
import type { PersistentMap } from './persistent-map';
import type { RenderContext } from './render';
import type { Execution, JsonObject, TaskOutputEntry, TaskRun } from './types';

export interface ContextSource {
  readonly flow: Flow;
  readonly execution: Pick<
    Execution,
    'id' | 'tenant' | 'inputs' | 'variables' | 'histories' | 'parent' | 'trigger' | 'flowRevision' | 'originalExecutionId'
  >;
  readonly labels: Readonly<Record<string, string>>;
  readonly taskOutputs: PersistentMap<TaskOutputEntry>;
  /** Kestra's `envs` (the instance's ENV_-prefixed variables) and `globals` (instance-wide variables); empty when not given. */
  readonly envs?: Readonly<Record<string, string>>;
  /** Visits every task run of the execution as it stands (Kestra's `tasks.<taskId>.state`). */
  readonly eachTaskRun?: (visit: (run: TaskRun) => void) => void;
  /** A task run of the execution by its id, as it stands (Kestra's `parents`: the enclosing task runs and their outputs). */
  readonly taskRunById?: (id: string) => TaskRun | undefined;
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
  if (execution.trigger !== undefined) context['trigger'] = execution.trigger;
  // A subflow child whose execution holds no trigger of its own (one created before the Subflow
  // task recorded it): the parent execution, as far as the reference to it tells.
  else if (execution.parent !== undefined) {
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
    const enclosing = enclosingRuns(source, taskRun);
    const iteration = taskrunIteration(flow, taskRun, enclosing[0]);
    if (iteration !== undefined) taskrun['iteration'] = iteration;
    context['taskrun'] = taskrun;
    const parents = parentsOf(taskRun, enclosing, source.taskRunById !== undefined);
    context['parents'] = parents;
    if (parents.length > 0) context['parent'] = parents[0];
  }
  return context;
}

/** The task runs enclosing `taskRun`, nearest first (empty when the source cannot look task runs up). */
function enclosingRuns(source: ContextSource, taskRun: TaskRun): TaskRun[] {
  const lookUp = source.taskRunById;
  const found: TaskRun[] = [];
  if (lookUp === undefined) return found;
  const seen = new Set<string>([taskRun.id]);
  for (let id = taskRun.parentTaskRunId; id !== undefined && !seen.has(id);) {
    seen.add(id);
    const parent = lookUp(id);
    if (parent === undefined) break;
    found.push(parent);
    id = parent.parentTaskRunId;
  }
  return found;
}

/**
 * Kestra's `parents`, nearest first: one entry per enclosing task run that has a value
 * (`taskrun.value`, a ForEach lane) or outputs (`outputs`, a WaitFor's `iterationCount`);
 * an enclosing task run with neither (a Sequential) gives no entry. Without a way to look
 * task runs up, the enclosing ForEach values alone.
 */
function parentsOf(taskRun: TaskRun, enclosing: readonly TaskRun[], canLookUp: boolean): Record<string, unknown>[] {
  if (!canLookUp) {
    const values = taskRun.forEachValues ?? [];
    const outer = taskRun.value === undefined ? values : values.slice(0, -1);
    return outer
      .slice()
      .reverse()
      .map((value) => ({ taskrun: { value } }));
  }
  const parents: Record<string, unknown>[] = [];
  for (const parent of enclosing) {
    const entry: Record<string, unknown> = {};
    if (parent.value !== undefined) entry['taskrun'] = { value: parent.value };
    if (parent.outputs !== undefined && Object.keys(parent.outputs).length > 0) entry['outputs'] = parent.outputs;
    if (Object.keys(entry).length > 0) parents.push(entry);
  }
  return parents;
}

/**
 * Kestra's `taskrun.iteration`: inside a WaitFor, the iteration the task run belongs to,
 * 1 first (Kestra sets it on the first task of each iteration; Lanner on every task run
 * directly under the WaitFor). The stored iteration counts from 0 and is absent on the first.
 */
function taskrunIteration(flow: Flow, taskRun: TaskRun, parent: TaskRun | undefined): number | undefined {
  const underWaitFor = parent !== undefined && taskIfKnown(flow, parent.taskId)?.kind === 'WaitFor';
  if (underWaitFor) return (taskRun.iteration ?? 0) + 1;
  return taskRun.iteration === undefined ? undefined : taskRun.iteration + 1;
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

function taskIfKnown(flow: Flow, taskId: string): Task | undefined {
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
