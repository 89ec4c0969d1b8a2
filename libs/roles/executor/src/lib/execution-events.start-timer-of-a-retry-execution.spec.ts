import {
  executionStartTimerId,
  executorTimerReason,
  isExecutionStartTimer,
  isExecutorTimerKind,
  timerFromId,
} from './execution-events';

describe("the start timer of a retry execution (the executor's own timer kind)", () => {
  it('is told apart from the state machine timers by its id', () => {
    const id = executionStartTimerId('run1-retry2');

    expect(id).toBe('run1-retry2|execution-start|1');
    expect(isExecutionStartTimer(id)).toBe(true);
    expect(isExecutionStartTimer('run1:flaky|retry|1')).toBe(false);
    // The state machine does not know it: it never reaches timerFromId.
    expect(() => timerFromId(id, 0)).toThrow("'run1-retry2|execution-start|1' is not a timer id of the state machine");
  });

  it('is a kind the delay loop fires, as a RETRY timer', () => {
    expect(isExecutorTimerKind('execution-start')).toBe(true);
    expect(isExecutorTimerKind('task-timeout')).toBe(true);
    expect(isExecutorTimerKind('from-a-newer-executor')).toBe(false);
    expect(executorTimerReason('execution-start')).toBe('RETRY');
    expect(executorTimerReason('task-timeout')).toBe('TIMEOUT');
  });
});
