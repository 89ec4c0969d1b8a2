import { simulateFlow } from '../index';
import { constantRetry, failTask, flow, log, runsOf } from '../test-support/flows';

// Kestra's Fail is a RunnableTask (plugin/core/execution/Fail.java): it runs on a
// worker, so its retry, timeout and allowFailure apply as to any task.
describe('Fail', () => {
  it('is retried by its retry, each attempt failing', () => {
    const stop = { ...failTask('stop', 'still broken'), retry: constantRetry(1000, 3) };
    const result = simulateFlow(flow([stop]));
    expect(result.execution.state).toBe('FAILED');
    const run = runsOf(result.execution, 'stop')[0];
    expect(run?.attempts.map((attempt) => attempt.state)).toEqual(['FAILED', 'FAILED', 'FAILED']);
    expect(run?.error).toBe('still broken');
  });

  it("is retried by the flow's retry", () => {
    const result = simulateFlow({ ...flow([failTask('stop', 'x')]), retry: constantRetry(1000, 2) });
    expect(runsOf(result.execution, 'stop')[0]?.attempts).toHaveLength(2);
  });

  it('ends WARNING with allowFailure, and the flow goes on', () => {
    const result = simulateFlow(flow([{ ...failTask('stop', 'x'), allowFailure: true }, log('after')]));
    expect(result.execution.state).toBe('WARNING');
    expect(runsOf(result.execution, 'after')[0]?.state).toBe('SUCCESS');
  });
});
