import type { ExecutorEvent } from '@lanner/frames';
import { EXECUTION_RECORD_STATES, type ExecutionRecordState } from '@lanner/model';
import type { ExecutionEvent, JsonObject, Timer, TimerKind } from '@lanner/state-machine';

/** A queue message the state machine cannot take (e.g. a timer id it never issued); logged and skipped. */
export class UnusableExecutorEvent extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnusableExecutorEvent';
  }
}

const TIMER_KINDS: readonly TimerKind[] = [
  'retry',
  'pause-resume',
  'pause-timeout',
  'task-timeout',
  'waitfor-next',
  'sla-max-duration',
];

/** The reason a `timer.fired` message names, per state-machine timer kind. */
export function timerReason(kind: TimerKind): 'RETRY' | 'PAUSE' | 'TIMEOUT' | 'WAIT_FOR' {
  switch (kind) {
    case 'retry':
      return 'RETRY';
    case 'pause-resume':
    case 'pause-timeout':
      return 'PAUSE';
    case 'task-timeout':
    case 'sla-max-duration':
      return 'TIMEOUT';
    case 'waitfor-next':
      return 'WAIT_FOR';
  }
}

export function isTimerKind(kind: string): kind is TimerKind {
  return (TIMER_KINDS as readonly string[]).includes(kind);
}

/**
 * The executor's own timer kind (not the state machine's): a CREATE_NEW_EXECUTION
 * retry is created at once, in CREATED, and starts when this timer fires.
 */
export const EXECUTION_START_TIMER_KIND = 'execution-start';

/** The start timer of an execution created to retry another (one per execution). */
export function executionStartTimerId(executionId: string): string {
  return `${executionId}|${EXECUTION_START_TIMER_KIND}|1`;
}

export function isExecutionStartTimer(timerId: string): boolean {
  return timerId.endsWith(`|${EXECUTION_START_TIMER_KIND}|1`);
}

/** Every timer kind the delay loop may fire: the state machine's and the executor's own. */
export function isExecutorTimerKind(kind: string): boolean {
  return isTimerKind(kind) || kind === EXECUTION_START_TIMER_KIND;
}

/** The reason a `timer.fired` message names, for any timer kind the delay loop fires. */
export function executorTimerReason(kind: string): 'RETRY' | 'PAUSE' | 'TIMEOUT' | 'WAIT_FOR' {
  return kind === EXECUTION_START_TIMER_KIND ? 'RETRY' : timerReason(kind as TimerKind);
}

/**
 * The state machine's timer ids are `<taskRunId>|<kind>|<attempt>` (see its
 * `timerId`); a task-run id may itself contain `|`, so the id is read from the right.
 */
export function timerFromId(timerId: string, at: number): Timer {
  const attemptAt = timerId.lastIndexOf('|');
  const kindAt = timerId.lastIndexOf('|', attemptAt - 1);
  const kind = timerId.slice(kindAt + 1, attemptAt);
  const attempt = Number(timerId.slice(attemptAt + 1));
  if (attemptAt <= 0 || kindAt <= 0 || !isTimerKind(kind) || !Number.isInteger(attempt)) {
    throw new UnusableExecutorEvent(`'${timerId}' is not a timer id of the state machine`);
  }
  return { id: timerId, kind, at, taskRunId: timerId.slice(0, kindAt), attempt };
}

function executionState(state: string): ExecutionRecordState {
  const known = EXECUTION_RECORD_STATES.find((candidate) => candidate === state);
  if (known === undefined) throw new UnusableExecutorEvent(`'${state}' is not an execution state`);
  return known;
}

/**
 * Maps a validated `lanner.executor` message to the state machine's event.
 * `runningExecutions` is only read for `execution.created` (flow concurrency limits).
 */
export function toExecutionEvent(message: ExecutorEvent, runningExecutions = 0): ExecutionEvent {
  switch (message.type) {
    case 'execution.created':
      return { type: 'created', runningExecutions };
    case 'task-run.started':
      return {
        type: 'task-run-started',
        taskRunId: message.payload.taskRunId,
        attempt: message.payload.attempt,
        workerId: message.payload.workerId,
        workerQueueId: message.payload.workerQueueId,
      };
    case 'task-run.result': {
      const { taskRunId, attempt, state, outputs, errorMessage, deadlinePassed, workerId, workerQueueId } = message.payload;
      // Not started because the task's timeout had passed: the executor words it as its own timeout, whoever noticed first.
      if (deadlinePassed === true && state === 'FAILED') return { type: 'task-run-deadline-passed', taskRunId, attempt };
      return {
        type: 'task-run-result',
        taskRunId,
        attempt,
        state,
        // The schema checked it is a JSON object (a worker's outputs as JSON).
        outputs: outputs as JsonObject,
        ...(errorMessage !== undefined ? { error: errorMessage } : {}),
        workerId,
        workerQueueId,
      };
    }
    case 'task-run.worker-lost':
      return {
        type: 'worker-lost',
        taskRunId: message.payload.taskRunId,
        attempt: message.payload.attempt,
        ...(message.payload.restartStrategy === 'NEVER' ? { neverRestart: true } : {}),
      };
    case 'execution.kill':
      return { type: 'kill-requested' };
    case 'execution.resume':
      return {
        type: 'resume-requested',
        ...(message.payload.inputs !== undefined ? { inputs: message.payload.inputs as JsonObject } : {}),
      };
    case 'execution.restart':
      return {
        type: 'restart-requested',
        ...(message.payload.expectedVersion !== undefined ? { expectedVersion: message.payload.expectedVersion } : {}),
      };
    case 'subflow.ended':
      return {
        type: 'subflow-ended',
        taskRunId: message.payload.taskRunId,
        executionId: message.payload.childExecutionId,
        state: executionState(message.payload.state),
        ...(message.payload.outputs !== undefined ? { outputs: message.payload.outputs as JsonObject } : {}),
      };
    case 'timer.fired':
      return { type: 'timer-fired', timer: timerFromId(message.payload.timerId, Date.parse(message.payload.dueAt)) };
  }
}
