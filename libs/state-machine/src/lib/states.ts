// The explicit transition tables of FLOWS.md ("States"). Anything not listed is
// a bug in the caller and is refused with `IllegalTransition`.
import type { ExecutionRecordState, TaskRunRecordState } from '@lanner/model';

export type ExecutionState = ExecutionRecordState;
export type TaskRunState = TaskRunRecordState;

/** Terminal states (FLOWS.md). RETRIED/SKIPPED only occur on task runs and retried executions. */
export const TERMINAL_STATES: ReadonlySet<TaskRunState> = new Set<TaskRunState>([
  'SUCCESS',
  'WARNING',
  'FAILED',
  'KILLED',
  'CANCELLED',
  'RETRIED',
  'SKIPPED',
]);

export function isTerminal(state: TaskRunState): boolean {
  return TERMINAL_STATES.has(state);
}

/**
 * Execution transitions. The FLOWS.md core, plus where FLOWS.md is silent
 * (following Kestra): RETRYING -> KILLING is not allowed, a kill of a retrying
 * execution goes RETRYING -> RUNNING -> KILLING. A restart asks for a slot of the
 * flow's concurrency limit as a new execution does, so RESTARTED leads where
 * CREATED does: QUEUED (then RUNNING once admitted), CANCELLED or FAILED.
 */
export const EXECUTION_TRANSITIONS: Readonly<Record<ExecutionState, readonly ExecutionState[]>> = {
  CREATED: ['QUEUED', 'RUNNING', 'CANCELLED', 'FAILED'],
  QUEUED: ['RUNNING', 'CANCELLED'],
  // CANCELLED: a violated SLA with behavior CANCEL (Kestra's markAs CANCELLED).
  RUNNING: ['PAUSED', 'KILLING', 'RETRYING', 'SUCCESS', 'WARNING', 'FAILED', 'CANCELLED'],
  PAUSED: ['RUNNING', 'KILLING', 'FAILED'],
  RESTARTED: ['RUNNING', 'QUEUED', 'CANCELLED', 'FAILED'],
  KILLING: ['KILLED'],
  RETRYING: ['RUNNING', 'RETRIED'],
  RETRIED: [],
  SUCCESS: [],
  WARNING: ['RESTARTED'],
  FAILED: ['RESTARTED'],
  KILLED: ['RESTARTED'],
  CANCELLED: [],
};

/**
 * Task-run transitions. The FLOWS.md core, plus (where it is silent, as Kestra
 * does): a restart re-runs FAILED/KILLED/CANCELLED task runs through RESTARTED;
 * KILLING is also reached from PAUSED-then-RUNNING; RETRYING -> SUBMITTED also
 * serves a kill of a task waiting for its retry timer (then SUBMITTED -> KILLED).
 */
export const TASK_RUN_TRANSITIONS: Readonly<Record<TaskRunState, readonly TaskRunState[]>> = {
  CREATED: ['SUBMITTED', 'RUNNING', 'SKIPPED', 'CANCELLED', 'FAILED'],
  SUBMITTED: ['RUNNING', 'KILLED', 'FAILED', 'CANCELLED'],
  RUNNING: ['SUCCESS', 'WARNING', 'FAILED', 'KILLING', 'RESUBMITTED', 'PAUSED'],
  RESUBMITTED: ['SUBMITTED', 'FAILED'],
  FAILED: ['RETRYING', 'RESTARTED'],
  RETRYING: ['SUBMITTED', 'RETRIED'],
  KILLING: ['KILLED'],
  PAUSED: ['RUNNING', 'FAILED'],
  KILLED: ['RESTARTED'],
  CANCELLED: ['RESTARTED'],
  RESTARTED: ['SUBMITTED', 'RUNNING'],
  QUEUED: [],
  RETRIED: [],
  SUCCESS: [],
  WARNING: [],
  SKIPPED: [],
};

/** A transition outside the tables: always a bug, never a user error. */
export class IllegalTransition extends Error {
  constructor(
    readonly subject: 'execution' | 'task run',
    readonly from: string,
    readonly to: string,
    readonly id: string,
  ) {
    super(`Illegal ${subject} transition ${from} -> ${to} (${id})`);
    this.name = 'IllegalTransition';
  }
}

const executionAllowed = buildLookup(EXECUTION_TRANSITIONS);
const taskRunAllowed = buildLookup(TASK_RUN_TRANSITIONS);

/** from -> allowed targets, as sets (no string building on the hot path). */
function buildLookup(table: Readonly<Record<string, readonly string[]>>): ReadonlyMap<string, ReadonlySet<string>> {
  return new Map(Object.entries(table).map(([from, tos]) => [from, new Set(tos)]));
}

export function isAllowedExecutionTransition(from: ExecutionState, to: ExecutionState): boolean {
  return executionAllowed.get(from)?.has(to) === true;
}

export function isAllowedTaskRunTransition(from: TaskRunState, to: TaskRunState): boolean {
  return taskRunAllowed.get(from)?.has(to) === true;
}

/** Guard: returns `to` when the table allows `from -> to`, throws `IllegalTransition` otherwise. */
export function transition(subject: 'execution', from: ExecutionState, to: ExecutionState, id?: string): ExecutionState;
export function transition(subject: 'task run', from: TaskRunState, to: TaskRunState, id?: string): TaskRunState;
export function transition(subject: 'execution' | 'task run', from: TaskRunState, to: TaskRunState, id = ''): TaskRunState {
  const allowed = (subject === 'execution' ? executionAllowed : taskRunAllowed).get(from)?.has(to) === true;
  if (!allowed) throw new IllegalTransition(subject, from, to, id);
  return to;
}
