import type { RetryPolicy } from '@lanner/model';
import { retryDelay, simulateFlow } from '../index';
import { constantRetry, flow, historyOf, log, runsOf } from '../test-support/flows';

const FAIL = { state: 'FAILED' as const, error: 'flaky' };
const OK = { state: 'SUCCESS' as const };

function retryTimers(result: ReturnType<typeof simulateFlow>): number[] {
  return result.actions.flatMap((action) =>
    action.type === 'schedule-timer' && action.timer.kind === 'retry' ? [action.timer.at] : [],
  );
}

describe('retries', () => {
  it('RETRY_FAILED_TASK with a constant interval: a new attempt of the same task run after the timer', () => {
    const result = simulateFlow(flow([log('flaky', { retry: constantRetry(5000, 3) })]), { script: { flaky: [FAIL, FAIL, OK] } });
    expect(result.execution.state).toBe('SUCCESS');
    const [run] = runsOf(result.execution, 'flaky');
    expect(runsOf(result.execution, 'flaky')).toHaveLength(1);
    expect(run?.attempts.map((attempt) => attempt.state)).toEqual(['FAILED', 'FAILED', 'SUCCESS']);
    expect(historyOf(run)).toBe(
      'CREATED>SUBMITTED>RUNNING>FAILED>RETRYING>SUBMITTED>RUNNING>FAILED>RETRYING>SUBMITTED>RUNNING>SUCCESS',
    );
    // Fails at 1 s, retries at 6 s, fails at 7 s, retries at 12 s.
    expect(retryTimers(result)).toEqual([6000, 12000]);
  });

  it('stops after maxAttempts and fails with the last error', () => {
    const result = simulateFlow(flow([log('flaky', { retry: constantRetry(1000, 2) })]), { script: { flaky: FAIL } });
    expect(result.execution.state).toBe('FAILED');
    const [run] = runsOf(result.execution, 'flaky');
    expect(run?.attempts).toHaveLength(2);
    expect(run?.error).toBe('flaky');
  });

  it('stops when maxDuration since the first attempt is used up', () => {
    const retry: RetryPolicy = {
      type: 'constant',
      intervalMs: 1000,
      maxDurationMs: 4500,
      behavior: 'RETRY_FAILED_TASK',
      warningOnRetry: false,
    };
    const result = simulateFlow(flow([log('flaky', { retry })]), { script: { flaky: FAIL } });
    expect(result.execution.state).toBe('FAILED');
    // Attempts end at 1 s, 3 s, 5 s: the third is past 4.5 s, so no fourth.
    expect(runsOf(result.execution, 'flaky')[0]?.attempts).toHaveLength(3);
  });

  it('grows exponential delays up to maxInterval', () => {
    const retry: RetryPolicy = {
      type: 'exponential',
      intervalMs: 1000,
      maxIntervalMs: 5000,
      maxAttempts: 6,
      behavior: 'RETRY_FAILED_TASK',
      warningOnRetry: false,
    };
    const result = simulateFlow(flow([log('flaky', { retry })]), {
      script: { flaky: [FAIL, FAIL, FAIL, FAIL, FAIL, OK] },
      defaultDurationMs: 0,
    });
    expect(result.execution.state).toBe('SUCCESS');
    const timers = retryTimers(result);
    const delays = timers.map((at, i) => at - (i === 0 ? 0 : (timers[i - 1] as number)));
    expect(delays).toEqual([1000, 2000, 4000, 5000, 5000]);
  });

  it('draws random delays within bounds, the same for the same task run and attempt', () => {
    const retry: RetryPolicy = {
      type: 'random',
      minIntervalMs: 1000,
      maxIntervalMs: 3000,
      maxAttempts: 3,
      behavior: 'RETRY_FAILED_TASK',
      warningOnRetry: false,
    };
    for (let i = 0; i < 50; i++) {
      const delay = retryDelay(retry, 1, `exec${i}:t#1`);
      expect(delay).toBeGreaterThanOrEqual(1000);
      expect(delay).toBeLessThan(3000);
    }
    const once = simulateFlow(flow([log('flaky', { retry })]), { script: { flaky: [FAIL, OK] } });
    const again = simulateFlow(flow([log('flaky', { retry })]), { script: { flaky: [FAIL, OK] } });
    expect(retryTimers(once)).toEqual(retryTimers(again));
  });

  it('ends WARNING after a retried success with warningOnRetry', () => {
    const result = simulateFlow(flow([log('flaky', { retry: constantRetry(1000, 3, { warningOnRetry: true }) })]), {
      script: { flaky: [FAIL, OK] },
    });
    expect(result.execution.state).toBe('WARNING');
  });

  it('does not use up an attempt when the worker is lost; the job keeps its queue', () => {
    const result = simulateFlow(flow([log('job', { retry: constantRetry(1000, 1) })]), {
      script: { job: [{ state: 'LOST' }, OK] },
    });
    expect(result.execution.state).toBe('SUCCESS');
    const [run] = runsOf(result.execution, 'job');
    expect(run?.attempts.map((attempt) => attempt.state)).toEqual(['RESUBMITTED', 'SUCCESS']);
    expect(historyOf(run)).toBe('CREATED>SUBMITTED>RUNNING>RESUBMITTED>SUBMITTED>RUNNING>SUCCESS');
    const redispatch = result.actions.filter((action) => action.type === 'dispatch')[1];
    expect(redispatch).toMatchObject({ workerQueueId: 'default', attempt: 2 });
  });

  it('CREATE_NEW_EXECUTION: the execution ends RETRIED and asks for a new execution after the delay', () => {
    const retry = constantRetry(60_000, 3, { behavior: 'CREATE_NEW_EXECUTION' });
    const result = simulateFlow(flow([log('flaky', { retry }), log('next')]), { script: { flaky: FAIL }, executionId: 'run1' });
    expect(result.execution.state).toBe('RETRIED');
    expect(historyOf(runsOf(result.execution, 'flaky')[0])).toBe('CREATED>SUBMITTED>RUNNING>FAILED>RETRYING>RETRIED');
    expect(result.retryExecutions).toEqual([
      { type: 'create-retry-execution', executionId: 'run1-retry2', at: 61_000, retryAttempt: 2, originalExecutionId: 'run1' },
    ]);
    expect(result.execution.histories.map((change) => change.state)).toEqual(['CREATED', 'RUNNING', 'RETRYING', 'RETRIED']);
  });

  it('allowFailure applies once the retries are used up', () => {
    const result = simulateFlow(flow([log('flaky', { retry: constantRetry(10, 2), allowFailure: true }), log('next')]), {
      script: { flaky: FAIL },
    });
    expect(result.execution.state).toBe('WARNING');
    expect(runsOf(result.execution, 'flaky')[0]?.attempts).toHaveLength(2);
    expect(runsOf(result.execution, 'next')[0]?.state).toBe('SUCCESS');
  });
});
