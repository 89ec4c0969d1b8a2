import type { RecordedStateChange, StoredJson, TaskRunWrite } from '@lanner/model';
import type { ExecutorStateWrite, ExecutorTaskRunWrite } from '@lanner/repository';
import {
  isTerminal,
  listTaskRuns,
  toStoredState,
  toStoredTaskRun,
  type Execution,
  type StateChange,
  type TaskRun,
} from '@lanner/state-machine';
import { storesEveryTaskRun } from './stored-state';

function recorded<S extends string>(histories: readonly StateChange<S>[]): RecordedStateChange<S>[] {
  return histories.map((change) => ({ state: change.state, date: new Date(change.at) }));
}

function optionalDate(at: number | undefined): Date | null {
  return at === undefined ? null : new Date(at);
}

/** The state-machine values are JSON already; this drops `undefined` fields, which a JSON column refuses. */
function asStoredJson(value: unknown): StoredJson {
  return JSON.parse(JSON.stringify(value)) as StoredJson;
}

export function toTaskRunWrite(run: TaskRun): TaskRunWrite {
  return {
    id: run.id,
    executionId: run.executionId,
    taskId: run.taskId,
    parentTaskRunId: run.parentTaskRunId ?? null,
    value: run.value ?? null,
    state: run.state,
    stateHistories: recorded(run.histories),
    outputs: run.outputs === undefined ? null : asStoredJson(run.outputs),
    workerQueueId: run.workerQueueId ?? null,
    workerSelector: run.selector === undefined ? null : asStoredJson(run.selector),
    // Why it waits on its queue, else why the resolver refused it or sent it elsewhere than its selector asked.
    dispatchReason: run.waitingReason ?? run.dispatchReason ?? null,
    error: run.error ?? null,
    attempts: run.attempts.map((attempt) => ({
      attempt: attempt.attempt,
      workerId: attempt.workerId ?? null,
      workerQueueId: attempt.workerQueueId ?? null,
      state: attempt.state,
      outputs: attempt.outputs === undefined ? null : asStoredJson(attempt.outputs),
      error: attempt.error === undefined ? null : { message: attempt.error },
      startedAt: optionalDate(attempt.startedAt),
      endedAt: optionalDate(attempt.endedAt),
    })),
  };
}

/**
 * What to store after `previous` became `current`: the row's fields, the
 * state-machine value without its task runs, and only the task runs that
 * changed, each with its own value (unchanged task runs are the very same
 * objects in both values: the state machine shares them, and the map finds the
 * changed ones without visiting the others). So what one event writes does not
 * grow with the task runs the execution already has.
 */
export function executorStateWrite(previous: Execution, current: Execution): ExecutorStateWrite {
  const changed = (storesEveryTaskRun(previous) ? listTaskRuns(current) : current.taskRuns.changedSince(previous.taskRuns)).sort(
    (a, b) => a.seq - b.seq,
  );
  const started = current.histories.find((change) => change.state === 'RUNNING');
  const last = current.histories[current.histories.length - 1];
  return {
    version: current.version,
    state: current.state,
    stateHistories: recorded(current.histories),
    outputs: current.outputs === undefined ? null : asStoredJson(current.outputs),
    labels: { ...current.labels },
    startedAt: optionalDate(started?.at),
    endedAt: isTerminal(current.state) ? optionalDate(last?.at) : null,
    error: current.error ?? null,
    taskRuns: changed.map((run): ExecutorTaskRunWrite => ({
      ...toTaskRunWrite(run),
      machineData: asStoredJson(toStoredTaskRun(run)),
    })),
    stateData: asStoredJson(toStoredState(current)),
  };
}
