import { retryOrigin, retryTrigger } from './retry-execution';

describe('the trigger of a CREATE_NEW_EXECUTION retry execution', () => {
  it('gives the state machine the retry attempt and the first execution of the chain back', () => {
    const trigger = retryTrigger({ retriedExecutionId: 'run1-retry2', originalExecutionId: 'run1', retryAttempt: 3 });

    expect(trigger).toEqual({ type: 'retry', retriedExecutionId: 'run1-retry2', originalExecutionId: 'run1', retryAttempt: 3 });
    expect(retryOrigin(trigger)).toEqual({ retryAttempt: 3, originalExecutionId: 'run1' });
  });

  it('gives nothing for an execution started any other way', () => {
    expect(retryOrigin(null)).toEqual({});
    expect(retryOrigin({ type: 'schedule', date: '2026-11-30T02:00:00Z' })).toEqual({});
    expect(retryOrigin({ type: 'retry', originalExecutionId: 'run1' })).toEqual({});
    expect(retryOrigin(['retry'])).toEqual({});
  });
});
