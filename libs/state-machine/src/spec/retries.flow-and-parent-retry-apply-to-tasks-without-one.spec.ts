import { simulateFlow } from '../index';
import { constantRetry, flow, log, runsOf, sequential } from '../test-support/flows';

// Kestra (ExecutorService, handleChildWorkerTaskResult): a failed task is
// retried with its own retry, else that of the nearest flowable above it that
// has one, else the flow's `retry`.
const failTwice = [{ state: 'FAILED' }, { state: 'FAILED' }, { state: 'SUCCESS' }] as const;
const attemptsOf = (result: ReturnType<typeof simulateFlow>, id: string) => runsOf(result.execution, id)[0]?.attempts.length;

describe('retry inherited by tasks without one', () => {
  it("the flow's retry applies to a task without one", () => {
    const result = simulateFlow({ ...flow([log('call')]), retry: constantRetry(1000, 3) }, { script: { call: failTwice } });
    expect(result.execution.state).toBe('SUCCESS');
    expect(attemptsOf(result, 'call')).toBe(3);
  });

  it("a flowable's retry applies to its children, before the flow's", () => {
    const group = { ...sequential('group', [log('call')]), retry: constantRetry(1000, 2) };
    const result = simulateFlow({ ...flow([group]), retry: constantRetry(1000, 5) }, { script: { call: failTwice } });
    expect(result.execution.state).toBe('FAILED');
    expect(attemptsOf(result, 'call')).toBe(2);
  });

  it("the task's own retry comes first", () => {
    const result = simulateFlow(
      { ...flow([log('call', { retry: constantRetry(1000, 1) })]), retry: constantRetry(1000, 5) },
      {
        script: { call: failTwice },
      },
    );
    expect(attemptsOf(result, 'call')).toBe(1);
  });

  it('without any retry a failure is final', () => {
    const result = simulateFlow(flow([log('call')]), { script: { call: failTwice } });
    expect(attemptsOf(result, 'call')).toBe(1);
  });
});
