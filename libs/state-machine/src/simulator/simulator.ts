// A test and documentation harness, not a production path: runs a flow through
// `next` with scripted worker answers and a virtual clock. Events at the same
// virtual time are applied in the order they were produced; timers fire in time
// order; nothing here reads the real clock.
import { DEFAULT_TENANT_ID, DEFAULT_WORKER_QUEUE_ID, type Flow, type Task } from '@lanner/model';
import { createExecution } from '../lib/execution';
import { startSubflowChild } from '../lib/flowables/subflow';
import { isRunnable, taskById } from '../lib/flow-index';
import { next } from '../lib/next';
import { renderAny } from '../lib/render';
import { renderContextFor } from '../lib/render-context';
import type { ExecutionState } from '../lib/states';
import type { Execution, ExecutionAction, ExecutionEvent, JsonObject, Millis, RenderEnvironment } from '../lib/types';

/** What a worker (or the resolver) does with one attempt of a task run. */
export type ScriptedOutcome =
  | { readonly state: 'SUCCESS' | 'WARNING'; readonly outputs?: JsonObject; readonly durationMs?: number }
  | { readonly state: 'FAILED'; readonly error?: string; readonly durationMs?: number }
  /** Starts and never answers (until killed). */
  | { readonly state: 'HANG' }
  /** Never even starts: no worker takes the job. */
  | { readonly state: 'UNSTARTED' }
  /** Starts, then its worker dies after `durationMs`. */
  | { readonly state: 'LOST'; readonly durationMs?: number }
  /** The resolver refuses the job (selector fallback FAIL/CANCEL). */
  | { readonly state: 'REFUSED'; readonly as: 'FAILED' | 'CANCELLED'; readonly reason: string }
  /** The executor cannot produce the job: a template of the task does not render (a failed attempt). */
  | { readonly state: 'UNRENDERABLE'; readonly reason: string };

/**
 * Per task id: one outcome for every attempt, a list per attempt (the last
 * repeats: `[FAILED, SUCCESS]` fails once then succeeds), or per ForEach value.
 */
export type TaskScript =
  | ScriptedOutcome
  | readonly ScriptedOutcome[]
  | {
      readonly perValue: Readonly<Record<string, ScriptedOutcome | readonly ScriptedOutcome[]>>;
      readonly otherwise?: ScriptedOutcome | readonly ScriptedOutcome[];
    };

export interface SimulationOptions {
  readonly inputs?: JsonObject;
  readonly script?: Readonly<Record<string, TaskScript>>;
  /** Child executions of Subflow tasks, by `namespace.flowId` (default: SUCCESS, no outputs). */
  readonly subflows?: Readonly<
    Record<
      string,
      {
        readonly state: ExecutionState;
        readonly outputs?: JsonObject;
        readonly durationMs?: number;
        readonly error?: string;
        /** The child's render context, given for a Subflow's deprecated `outputs` map. */
        readonly context?: JsonObject;
        /** The child's flow: given, the child's inputs are checked and defaulted against it, as the executor does. */
        readonly flow?: Pick<Flow, 'namespace' | 'id' | 'inputs'>;
      }
    >
  >;
  /** External events at virtual times: kill, resume, restart, concurrency slot freed. */
  readonly events?: readonly { readonly at: Millis; readonly event: ExecutionEvent }[];
  /** Virtual start time (default 0). */
  readonly now?: Millis;
  readonly maxSteps?: number;
  readonly executionId?: string;
  /** Other running executions of the flow when this one is created (concurrency limits). */
  readonly runningExecutions?: number;
  /** Kestra's `envs`/`globals` and the random source, as a role gives them to `next` (default: none). */
  readonly environment?: RenderEnvironment;
  /** The execution to start from (in CREATED, e.g. a replay) instead of a new one of `flow`. */
  readonly start?: Execution;
  /** How long a scripted task takes when its outcome gives no duration (default 1 s). */
  readonly defaultDurationMs?: number;
}

export interface SimulationLogEntry {
  readonly at: Millis;
  readonly event: ExecutionEvent;
  readonly actions: readonly ExecutionAction[];
  readonly state: ExecutionState;
}

export interface SimulationResult {
  readonly execution: Execution;
  readonly log: readonly SimulationLogEntry[];
  /** Every action `next` produced, in order. */
  readonly actions: readonly ExecutionAction[];
  /** Child executions Subflow tasks started (waiting or not), with the inputs they were created with. */
  readonly childExecutions: readonly { readonly executionId: string; readonly flow: string; readonly inputs: JsonObject }[];
  /** Executions a CREATE_NEW_EXECUTION retry asked for. */
  readonly retryExecutions: readonly Extract<ExecutionAction, { type: 'create-retry-execution' }>[];
  /** True when `maxSteps` ran out before the queue drained. */
  readonly exhausted: boolean;
  readonly now: Millis;
}

interface Pending {
  readonly at: Millis;
  readonly seq: number;
  readonly event: ExecutionEvent;
  readonly timerId?: string;
}

/** Runs `flow` from creation until no event is left (or `maxSteps`). */
export function simulateFlow(flow: Flow, options: SimulationOptions = {}): SimulationResult {
  const start = options.now ?? 0;
  const defaultDuration = options.defaultDurationMs ?? 1000;
  const environment = options.environment ?? {};
  let execution =
    options.start ??
    createExecution(flow, { id: options.executionId ?? 'exec', tenant: DEFAULT_TENANT_ID, inputs: options.inputs ?? {} }, start);
  const queue: Pending[] = [];
  const cancelled = new Set<string>();
  const log: SimulationLogEntry[] = [];
  const allActions: ExecutionAction[] = [];
  const retryExecutions: Extract<ExecutionAction, { type: 'create-retry-execution' }>[] = [];
  const childExecutions: { executionId: string; flow: string; inputs: JsonObject }[] = [];
  let seq = 0;
  const push = (at: Millis, event: ExecutionEvent, timerId?: string): void => {
    const pending: Pending = { at, seq: seq++, event, ...(timerId !== undefined ? { timerId } : {}) };
    // Insertion keeps (at, seq) order; the queue stays small in tests.
    let index = queue.length;
    while (index > 0 && (queue[index - 1] as Pending).at > at) index--;
    queue.splice(index, 0, pending);
  };

  push(start, { type: 'created', runningExecutions: options.runningExecutions ?? 0 });
  for (const external of options.events ?? []) push(external.at, external.event);

  const maxSteps = options.maxSteps ?? 100_000;
  let steps = 0;
  let now = start;
  while (queue.length > 0 && steps < maxSteps) {
    const pending = queue.shift() as Pending;
    if (pending.timerId !== undefined && cancelled.has(pending.timerId)) continue;
    steps++;
    now = pending.at;
    const result = next(flow, execution, pending.event, now, environment);
    execution = result.execution;
    log.push({ at: now, event: pending.event, actions: result.actions, state: execution.state });
    for (const action of result.actions) {
      allActions.push(action);
      switch (action.type) {
        case 'dispatch': {
          const run = execution.taskRuns.get(action.taskRunId);
          const outcome =
            scriptedOutcome(options.script?.[action.task.id], run?.value, action.attempt) ??
            defaultOutcome(flow, execution, action.taskRunId, action.task.id, now, environment);
          const job = { taskRunId: action.taskRunId, attempt: action.attempt };
          if (outcome.state === 'REFUSED') {
            push(now, { type: 'task-run-dispatch-refused', ...job, state: outcome.as, reason: outcome.reason });
            break;
          }
          if (outcome.state === 'UNRENDERABLE') {
            const refused = { state: 'FAILED', reason: outcome.reason, attemptFailed: true } as const;
            push(now, { type: 'task-run-dispatch-refused', ...job, ...refused });
            break;
          }
          if (outcome.state === 'UNSTARTED') break;
          push(now, {
            type: 'task-run-started',
            ...job,
            workerId: 'worker-1',
            workerQueueId: action.workerQueueId ?? DEFAULT_WORKER_QUEUE_ID,
          });
          if (outcome.state === 'HANG') break;
          if (outcome.state === 'LOST') push(now + (outcome.durationMs ?? defaultDuration), { type: 'worker-lost', ...job });
          else if (outcome.state === 'FAILED') {
            push(now + (outcome.durationMs ?? defaultDuration), {
              type: 'task-run-result',
              ...job,
              state: 'FAILED',
              error: outcome.error ?? 'scripted failure',
            });
          } else {
            push(now + (outcome.durationMs ?? defaultDuration), {
              type: 'task-run-result',
              ...job,
              state: outcome.state,
              ...(outcome.outputs !== undefined ? { outputs: outcome.outputs } : {}),
            });
          }
          break;
        }
        case 'kill-job':
          // A worker honours a kill: a job it holds answers KILLED at once.
          push(now, { type: 'task-run-result', taskRunId: action.taskRunId, attempt: action.attempt, state: 'KILLED' });
          break;
        case 'schedule-timer':
          cancelled.delete(action.timer.id);
          push(action.timer.at, { type: 'timer-fired', timer: action.timer }, action.timer.id);
          break;
        case 'cancel-timer':
          cancelled.add(action.timerId);
          break;
        case 'start-subflow': {
          const key = `${action.namespace}.${action.flowId}`;
          const child = options.subflows?.[key] ?? { state: 'SUCCESS' as const };
          const start =
            child.flow !== undefined ? startSubflowChild(child.flow, action) : { ok: true as const, inputs: action.inputs };
          if (!start.ok) {
            push(now, start.refused);
            break;
          }
          childExecutions.push({ executionId: action.executionId, flow: key, inputs: start.inputs });
          if (!action.wait) break;
          push(now + (child.durationMs ?? defaultDuration), {
            type: 'subflow-ended',
            taskRunId: action.taskRunId,
            executionId: action.executionId,
            state: child.state,
            ...(child.outputs !== undefined ? { outputs: child.outputs } : {}),
            ...('error' in child && child.error !== undefined ? { error: child.error } : {}),
            ...('context' in child && child.context !== undefined ? { childContext: child.context } : {}),
          });
          break;
        }
        case 'create-retry-execution':
          retryExecutions.push(action);
          break;
        default:
          break;
      }
    }
  }
  return { execution, log, actions: allActions, childExecutions, retryExecutions, exhausted: queue.length > 0, now };
}

function scriptedOutcome(
  script: TaskScript | undefined,
  value: string | undefined,
  attempt: number,
): ScriptedOutcome | undefined {
  if (script === undefined) return undefined;
  if (isPerValue(script)) {
    const chosen = (value !== undefined ? script.perValue[value] : undefined) ?? script.otherwise;
    return chosen === undefined ? undefined : pickAttempt(chosen, attempt);
  }
  return pickAttempt(script, attempt);
}

function isPerValue(script: TaskScript): script is Extract<TaskScript, { perValue: unknown }> {
  return !Array.isArray(script) && 'perValue' in script;
}

function pickAttempt(script: ScriptedOutcome | readonly ScriptedOutcome[], attempt: number): ScriptedOutcome {
  if (!Array.isArray(script)) return script as ScriptedOutcome;
  const list = script as readonly ScriptedOutcome[];
  return list[Math.min(attempt, list.length) - 1] as ScriptedOutcome;
}

/** Unscripted tasks succeed; OutputValues and Return produce their rendered outputs, as the real plugins do. */
function defaultOutcome(
  flow: Flow,
  execution: Execution,
  taskRunId: string,
  taskId: string,
  now: Millis,
  environment: RenderEnvironment,
): ScriptedOutcome {
  const options = environment.random !== undefined ? { now, random: environment.random } : { now };
  const task: Task = taskById(flow, taskId);
  if (!isRunnable(task)) return { state: 'SUCCESS' };
  if (task.kind === 'Sleep') return { state: 'SUCCESS', durationMs: task.durationMs };
  try {
    const context = renderContextFor(flow, execution, taskRunId, environment);
    if (task.kind === 'OutputValues')
      return { state: 'SUCCESS', outputs: { values: renderAny(task.values, context, options) as JsonObject } };
    if (task.kind === 'Return')
      return { state: 'SUCCESS', outputs: { value: renderAny(task.format, context, options) as string } };
    if (task.kind === 'Fail') {
      // As the worker's Fail: a condition that rendered false, 0, -0 or '' lets it succeed.
      const condition = task.condition === undefined ? undefined : String(renderAny(task.condition, context, options));
      if (condition !== undefined && ['false', '0', '-0', ''].includes(condition)) return { state: 'SUCCESS' };
      return { state: 'FAILED', error: String(renderAny(task.errorMessage, context, options)) };
    }
  } catch (error) {
    return { state: 'FAILED', error: error instanceof Error ? error.message : 'rendering failed' };
  }
  return { state: 'SUCCESS' };
}
