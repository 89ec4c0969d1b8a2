import { createExecution, simulateFlow } from '../index';
import type { Execution, SimulationOptions } from '../index';
import { constantRetry, flow, log, outputValues, runsOf } from '../test-support/flows';

// Kestra's CREATE_NEW_EXECUTION: a failed execution ends RETRIED and a new
// execution of the same flow runs in its place. Every execution of the chain
// names the first one (`originalId`), and counts its place in the chain.
const FAIL = { state: 'FAILED' as const, error: 'flaky' };
const retried = flow([
  log('flaky', { retry: constantRetry(1_000, 3, { behavior: 'CREATE_NEW_EXECUTION' }) }),
  outputValues('seen', { originalId: '{{ execution.originalId }}', id: '{{ execution.id }}' }),
]);

type RetryRequest = ReturnType<typeof simulateFlow>['retryExecutions'][number];

/** The execution the executor creates for a `create-retry-execution` request. */
function retryExecutionOf(request: RetryRequest): Execution {
  return createExecution(
    retried,
    {
      id: request.executionId,
      tenant: 'main',
      retryAttempt: request.retryAttempt,
      originalExecutionId: request.originalExecutionId,
    },
    request.at,
  );
}

/** Runs the execution a retry request asks for, from its start timer on. */
function runRetry(request: RetryRequest | undefined, script: SimulationOptions['script']): ReturnType<typeof simulateFlow> {
  if (request === undefined) throw new Error('no retry execution was asked for');
  return simulateFlow(retried, { script, start: retryExecutionOf(request), now: request.at });
}

describe('CREATE_NEW_EXECUTION links each new execution to the original', () => {
  it('names the first execution in every request of the chain, however long it gets', () => {
    const first = simulateFlow(retried, { script: { flaky: FAIL }, executionId: 'run1' });
    const [second] = first.retryExecutions;
    expect(second).toMatchObject({ executionId: 'run1-retry2', originalExecutionId: 'run1', retryAttempt: 2 });

    const secondRun = runRetry(second, { flaky: FAIL });
    expect(secondRun.execution.state).toBe('RETRIED');
    const [third] = secondRun.retryExecutions;
    // Not "run1-retry2-retry3": the third execution is linked to the first, not to the one it replaces.
    expect(third).toMatchObject({ executionId: 'run1-retry3', originalExecutionId: 'run1', retryAttempt: 3 });

    const thirdRun = runRetry(third, { flaky: FAIL });
    // maxAttempt 3 counts executions: the third one is the last, and ends FAILED.
    expect(thirdRun.execution.state).toBe('FAILED');
    expect(thirdRun.retryExecutions).toEqual([]);
  });

  it('lets a new execution read the first one as execution.originalId', () => {
    const first = simulateFlow(retried, { script: { flaky: FAIL }, executionId: 'run1' });
    const second = runRetry(first.retryExecutions[0], {});
    expect(second.execution.state).toBe('SUCCESS');
    expect(second.execution.originalExecutionId).toBe('run1');
    expect(runsOf(second.execution, 'seen')[0]?.outputs).toEqual({ values: { originalId: 'run1', id: 'run1-retry2' } });
  });

  it('gives the first execution its own id as originalId', () => {
    const first = simulateFlow(retried, { executionId: 'run1' });
    expect(first.execution.state).toBe('SUCCESS');
    expect(runsOf(first.execution, 'seen')[0]?.outputs).toEqual({ values: { originalId: 'run1', id: 'run1' } });
  });
});
