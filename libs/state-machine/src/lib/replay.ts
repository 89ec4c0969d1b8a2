// Replay (Kestra's "replay from a task run"): a new execution of the same flow
// revision, inputs and labels, that carries over the task runs that came before
// the chosen one (their outputs included) and runs again from it. The chosen
// task run and the containers above it enter the new execution RESTARTED; what
// came after it in its lane (and, in a Dag, what depends on it) and every errors
// or finally branch on its way are left out, so they run afresh. The `created`
// event then re-runs the RESTARTED path as a restart re-runs failed task runs.
import type { DagTask, Flow, Task } from '@lanner/model';
import { createExecution, executionFromData, executionToData } from './execution';
import { taskById } from './flow-index';
import { DAG_TASK } from './flowables';
import { isTerminal } from './states';
import type { ContainerProgress, DagTaskState, Execution, Millis, TaskRun } from './types';

/** Why a replay cannot be made, in words for the user who asked for it. */
export class ReplayRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReplayRefused';
  }
}

export interface ReplayRequest {
  /** The new execution's id. */
  readonly id: string;
  /** The task run (of `original`) to run again from; none: the whole flow runs again. */
  readonly taskRunId?: string;
  readonly now: Millis;
}

/**
 * Why `original` cannot be replayed from `taskRunId`, or undefined when it can:
 * it must have ended, and the task run must be one of its own, in the main
 * branch of everything above it, and outside any WaitFor loop.
 */
export function replayProblem(flow: Flow, original: Execution, taskRunId?: string): string | undefined {
  if (!isTerminal(original.state)) return `Execution '${original.id}' is ${original.state}; only an ended execution replays`;
  if (taskRunId === undefined) return undefined;
  const target = original.taskRuns.get(taskRunId);
  if (target === undefined) return `Execution '${original.id}' has no task run '${taskRunId}'`;
  for (const run of pathOf(original, target)) {
    if (run.stage !== 'main')
      return `Task run '${taskRunId}' is in the ${run.stage} branch of ${run === target ? 'its container' : `'${run.taskId}'`}; replay from a task of a main branch`;
    const parent = run.parentTaskRunId === undefined ? undefined : original.taskRuns.get(run.parentTaskRunId);
    if (parent !== undefined && taskOf(flow, parent).kind === 'WaitFor')
      return `Task run '${taskRunId}' runs in the loop of WaitFor '${parent.taskId}'; replay from the WaitFor itself`;
  }
  return undefined;
}

/** The new execution, in CREATED; throws `ReplayRefused` for what `replayProblem` names. */
export function replayExecution(flow: Flow, original: Execution, request: ReplayRequest): Execution {
  const problem = replayProblem(flow, original, request.taskRunId);
  if (problem !== undefined) throw new ReplayRefused(problem);
  const fresh = createExecution(
    flow,
    {
      id: request.id,
      tenant: original.tenant,
      inputs: original.inputs,
      labels: original.labels,
      ...(original.trigger !== undefined ? { trigger: original.trigger } : {}),
    },
    request.now,
  );
  const replayOf = { executionId: original.id, ...(request.taskRunId !== undefined ? { taskRunId: request.taskRunId } : {}) };
  if (request.taskRunId === undefined) return { ...fresh, variables: original.variables, replayOf };

  const target = original.taskRuns.get(request.taskRunId) as TaskRun;
  const path = pathOf(original, target);
  const onPath = new Set(path.map((run) => run.id));
  const runs = executionToData(original).taskRuns;
  const children = new Map<string | undefined, TaskRun[]>();
  for (const run of runs) {
    const list = children.get(run.parentTaskRunId) ?? [];
    list.push(run);
    children.set(run.parentTaskRunId, list);
  }
  const dropped = new Set<string>();
  const drop = (run: TaskRun): void => {
    dropped.add(run.id);
    for (const child of children.get(run.id) ?? []) drop(child);
  };
  for (const child of children.get(target.id) ?? []) drop(child);

  // Per container on the way (the root included): what followed the path in it.
  let root = original.root;
  const progressPatches = new Map<string, ContainerProgress>();
  for (const step of path) {
    const containerId = step.parentTaskRunId;
    const container = containerId === undefined ? undefined : original.taskRuns.get(containerId);
    const containerTask = container === undefined ? undefined : taskOf(flow, container);
    const dependents = containerTask?.kind === 'Dag' ? dagDependents(containerTask, step.lane) : new Set<number>();
    for (const sibling of children.get(containerId) ?? []) {
      if (sibling.id === step.id) continue;
      const after = sibling.lane === step.lane && sibling.position > step.position;
      if (sibling.stage !== 'main' || after || dependents.has(sibling.lane)) drop(sibling);
    }
    const progress = container === undefined ? original.root : (container.progress as ContainerProgress);
    const rewound = rewindDag(progress, dependents);
    if (container === undefined) root = rewound;
    else progressPatches.set(container.id, rewound);
  }

  const rename = (id: string): string => (id.startsWith(`${original.id}:`) ? `${request.id}${id.slice(original.id.length)}` : id);
  const kept: TaskRun[] = [];
  for (const run of runs) {
    if (dropped.has(run.id)) continue;
    let copy: TaskRun = {
      ...run,
      id: rename(run.id),
      executionId: request.id,
      ...(run.parentTaskRunId !== undefined ? { parentTaskRunId: rename(run.parentTaskRunId) } : {}),
    };
    if (onPath.has(run.id)) {
      copy = {
        ...copy,
        state: 'RESTARTED',
        histories: [...run.histories, { state: 'RESTARTED', at: request.now }],
        error: undefined,
        waitingReason: undefined,
        ...(progressPatches.has(run.id) ? { progress: progressPatches.get(run.id) } : {}),
      };
      // The chosen task run starts over: a flowable from its start, a runnable with a new attempt.
      if (run.id === target.id)
        copy = { ...copy, outputs: undefined, progress: undefined, subflowExecutionId: undefined, dispatchReason: undefined };
    }
    kept.push(copy);
  }
  const data = executionToData(fresh);
  return executionFromData({
    ...data,
    variables: original.variables,
    root,
    nextSeq: original.nextSeq,
    replayOf: { executionId: original.id, taskRunId: rename(request.taskRunId) },
    taskRuns: kept,
  });
}

/** The task run and the containers above it, innermost first. */
function pathOf(execution: Execution, run: TaskRun): TaskRun[] {
  const path: TaskRun[] = [run];
  let current = run;
  while (current.parentTaskRunId !== undefined) {
    const parent = execution.taskRuns.get(current.parentTaskRunId);
    if (parent === undefined) break;
    path.push(parent);
    current = parent;
  }
  return path;
}

function taskOf(flow: Flow, run: TaskRun): Task {
  return taskById(flow, run.taskId);
}

/** The lanes of a Dag that depend, directly or not, on `lane`. */
function dagDependents(task: DagTask, lane: number): Set<number> {
  const ids = task.tasks.map((entry) => entry.task.id);
  const found = new Set<number>();
  const pending = [ids[lane]];
  while (pending.length > 0) {
    const id = pending.pop();
    task.tasks.forEach((entry, index) => {
      if (found.has(index) || !(entry.dependsOn ?? []).includes(id as string)) return;
      found.add(index);
      pending.push(entry.task.id);
    });
  }
  return found;
}

/** A Dag's progress with `lanes` waiting again (they start once what they depend on succeeded anew). */
function rewindDag(progress: ContainerProgress, lanes: ReadonlySet<number>): ContainerProgress {
  if (lanes.size === 0) return progress;
  const reset = (states: readonly DagTaskState[] | undefined): readonly DagTaskState[] | undefined =>
    states?.map((state, lane) => (lanes.has(lane) ? DAG_TASK.waiting : state));
  return {
    ...progress,
    ...(progress.dag !== undefined ? { dag: reset(progress.dag) } : {}),
    ...(progress.mainDag !== undefined ? { mainDag: reset(progress.mainDag) } : {}),
  };
}

// ---- The `trigger` column of a replay's row -------------------------------------------

/** What a replay's row holds in its `trigger` column: the API writes it, the executor builds the replay from it. */
export interface ReplayOrigin {
  readonly type: 'replay';
  /** The execution replayed. */
  readonly executionId: string;
  /** The task run of that execution the replay runs again from. */
  readonly taskRunId?: string;
}

export function replayTrigger(executionId: string, taskRunId?: string): ReplayOrigin {
  return { type: 'replay', executionId, ...(taskRunId !== undefined ? { taskRunId } : {}) };
}

/** The replay origin a `trigger` column holds, or undefined for an execution started any other way. */
export function replayOrigin(trigger: unknown): ReplayOrigin | undefined {
  if (trigger === null || typeof trigger !== 'object' || Array.isArray(trigger)) return undefined;
  const { type, executionId, taskRunId } = trigger as Record<string, unknown>;
  if (type !== 'replay' || typeof executionId !== 'string') return undefined;
  if (taskRunId !== undefined && typeof taskRunId !== 'string') return undefined;
  return replayTrigger(executionId, taskRunId);
}
