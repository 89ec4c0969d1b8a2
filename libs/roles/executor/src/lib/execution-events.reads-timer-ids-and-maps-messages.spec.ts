import { QUEUE_SCHEMA_VERSIONS, type ExecutorEvent } from '@lanner/frames';
import { timerId } from '@lanner/state-machine';
import { timerFromId, timerReason, toExecutionEvent, UnusableExecutorEvent } from './execution-events';

type ResultPayload = Extract<ExecutorEvent, { type: 'task-run.result' }>['payload'];

/** A FAILED `task-run.result` of attempt 1 of `exec-1:t`, with `changes`. */
function taskRunResult(changes: Partial<ResultPayload>): ExecutorEvent {
  return {
    schemaVersion: QUEUE_SCHEMA_VERSIONS['task-run.result'],
    messageId: `exec-1:t:${changes.attempt ?? 1}`,
    type: 'task-run.result',
    occurredAt: '2026-11-30T01:00:00.000Z',
    payload: {
      tenantId: 'main',
      executionId: 'exec-1',
      taskRunId: 'exec-1:t',
      attempt: 1,
      workerQueueId: 'default',
      workerId: 'w-1',
      state: 'FAILED',
      outputs: {},
      cacheHit: false,
      endedAt: '2026-11-30T01:00:00.000Z',
      ...changes,
    },
  };
}

describe('executor events', () => {
  it('reads back the timer the state machine issued, even when the task-run id contains the separator', () => {
    const taskRunId = 'exec-1:loop@a|b:step';
    const id = timerId(taskRunId, 'task-timeout', 3);

    expect(timerFromId(id, 1_000)).toEqual({ id, kind: 'task-timeout', at: 1_000, taskRunId, attempt: 3 });
  });

  it('refuses a timer id the state machine never issued', () => {
    expect(() => timerFromId('exec-1:task|sleep|1', 0)).toThrow(UnusableExecutorEvent);
    expect(() => timerFromId('no-separator', 0)).toThrow(UnusableExecutorEvent);
  });

  it('names each timer kind with the reason of the timer.fired message', () => {
    expect(timerReason('retry')).toBe('RETRY');
    expect(timerReason('pause-resume')).toBe('PAUSE');
    expect(timerReason('pause-timeout')).toBe('PAUSE');
    expect(timerReason('task-timeout')).toBe('TIMEOUT');
    expect(timerReason('waitfor-next')).toBe('WAIT_FOR');
  });

  it("turns a worker's result into the state machine's result event, with its error message and who ran it", () => {
    const message = taskRunResult({ attempt: 2, outputs: { code: 503 }, errorMessage: 'the service answered 503' });

    expect(toExecutionEvent(message)).toEqual({
      type: 'task-run-result',
      taskRunId: 'exec-1:t',
      attempt: 2,
      state: 'FAILED',
      outputs: { code: 503 },
      error: 'the service answered 503',
      // A task that ended at once has no started event: the result says which worker ran it.
      workerId: 'w-1',
      workerQueueId: 'default',
    });
  });

  it('turns a result flagged as past its deadline into the deadline event, so the task run reads as its own timeout', () => {
    const deadlinePassed = {
      errorMessage: 'the job reached its deadline (2026-11-30T00:59:59.000Z) before a worker could start it',
      deadlinePassed: true,
    };

    expect(toExecutionEvent(taskRunResult(deadlinePassed))).toEqual({
      type: 'task-run-deadline-passed',
      taskRunId: 'exec-1:t',
      attempt: 1,
    });
    // Only a job that did not run carries the flag; a result of any other state stays a result.
    expect(toExecutionEvent(taskRunResult({ ...deadlinePassed, state: 'SUCCESS' }))).toMatchObject({
      type: 'task-run-result',
      state: 'SUCCESS',
    });
  });

  it('refuses a subflow end with a state no execution takes', () => {
    const message: ExecutorEvent = {
      schemaVersion: QUEUE_SCHEMA_VERSIONS['subflow.ended'],
      messageId: 'child:ended',
      type: 'subflow.ended',
      occurredAt: '2026-11-30T01:00:00.000Z',
      payload: { tenantId: 'main', executionId: 'parent', taskRunId: 'parent:call', childExecutionId: 'child', state: 'SKIPPED' },
    };

    expect(() => toExecutionEvent(message)).toThrow(UnusableExecutorEvent);
  });
});
