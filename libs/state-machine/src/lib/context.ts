// The render context of FLOWS.md ("Expressions") for one task run. `outputs` is
// materialised only when a template reads it (a getter), so evaluating a
// condition does not cost O(number of finished task runs).
import type { Flow } from '@lanner/model';
import type { PersistentMap } from './persistent-map';
import type { RenderContext } from './render';
import type { Execution, JsonObject, TaskOutputEntry, TaskRun } from './types';

export interface ContextSource {
  readonly flow: Flow;
  readonly execution: Pick<Execution, 'id' | 'inputs' | 'variables' | 'histories' | 'parent' | 'trigger' | 'flowRevision'>;
  readonly labels: Readonly<Record<string, string>>;
  readonly taskOutputs: PersistentMap<TaskOutputEntry>;
}

export function buildContext(source: ContextSource, taskRun?: TaskRun): RenderContext {
  const { flow, execution } = source;
  let outputs: Record<string, unknown> | undefined;
  const context: RenderContext = {
    flow: { id: flow.id, namespace: flow.namespace, revision: execution.flowRevision },
    execution: {
      id: execution.id,
      startDate: new Date(execution.histories[0]?.at ?? 0).toISOString(),
    },
    inputs: execution.inputs,
    vars: execution.variables,
    labels: source.labels,
    parent: execution.parent,
  };
  if (execution.trigger !== undefined) context['trigger'] = execution.trigger;
  Object.defineProperty(context, 'outputs', {
    enumerable: true,
    get: () => (outputs ??= materialiseOutputs(source.taskOutputs)),
  });
  if (taskRun !== undefined) {
    context['taskrun'] = {
      id: taskRun.id,
      taskId: taskRun.taskId,
      value: taskRun.value,
      iteration: taskRun.iteration,
      attemptsCount: taskRun.attempts.length,
    };
    // Kestra's `parents`: the enclosing ForEach values, innermost first.
    const values = taskRun.forEachValues ?? [];
    const ownValue = taskRun.value;
    const enclosing = ownValue === undefined ? values : values.slice(0, -1);
    context['parents'] = enclosing
      .slice()
      .reverse()
      .map((value) => ({ taskrun: { value } }));
  }
  return context;
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
