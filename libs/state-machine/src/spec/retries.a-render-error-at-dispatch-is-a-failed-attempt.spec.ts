import { simulateFlow } from '../index';
import { constantRetry, flow, log, runsOf } from '../test-support/flows';

// Kestra renders a task's properties on the worker, so a template that does not
// render fails an attempt like any other failure: retry and allowFailure apply.
// Lanner renders at dispatch; its refusal carries `attemptFailed`.
const unrenderable = { state: 'UNRENDERABLE', reason: "Cannot render '{{ nope() }}': unknown function 'nope'" } as const;

describe('a render error at dispatch', () => {
  it('is retried by the task retry', () => {
    const result = simulateFlow(flow([log('call', { retry: constantRetry(1000, 3) })]), {
      script: { call: [unrenderable, unrenderable, { state: 'SUCCESS' }] },
    });
    expect(result.execution.state).toBe('SUCCESS');
    expect(runsOf(result.execution, 'call')[0]?.attempts.map((attempt) => attempt.state)).toEqual([
      'FAILED',
      'FAILED',
      'SUCCESS',
    ]);
  });

  it('fails the task run with the message once retries are used up', () => {
    const result = simulateFlow(flow([log('call', { retry: constantRetry(1000, 2) })]), { script: { call: unrenderable } });
    expect(result.execution.state).toBe('FAILED');
    const run = runsOf(result.execution, 'call')[0];
    expect(run?.attempts).toHaveLength(2);
    expect(run?.error).toBe(unrenderable.reason);
  });

  it('ends WARNING under allowFailure and the flow goes on', () => {
    const result = simulateFlow(flow([log('call', { allowFailure: true }), log('after')]), { script: { call: unrenderable } });
    expect(result.execution.state).toBe('WARNING');
    expect(runsOf(result.execution, 'after')[0]?.state).toBe('SUCCESS');
  });

  it('a selector refusal stays a refusal: no retry', () => {
    const refused = { state: 'REFUSED', as: 'FAILED', reason: 'no worker group matches' } as const;
    const result = simulateFlow(flow([log('call', { retry: constantRetry(1000, 3) })]), { script: { call: refused } });
    expect(runsOf(result.execution, 'call')[0]?.attempts).toHaveLength(1);
  });
});
