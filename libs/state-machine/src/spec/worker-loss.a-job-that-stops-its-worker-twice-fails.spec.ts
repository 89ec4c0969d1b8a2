import { createExecution, next, simulateFlow } from '../index';
import { constantRetry, flow, historyOf, log, runsOf } from '../test-support/flows';

const LOST_TWICE =
  'the worker running this task was lost twice (attempts 1 and 2): a job that stops its worker is not resent again';

describe('a job whose run stops its worker', () => {
  it('is resent once, then fails with a reason naming the lost attempts instead of being resent forever', () => {
    const result = simulateFlow(flow([log('poison'), log('after')]), { script: { poison: { state: 'LOST' } } });
    expect(result.exhausted).toBe(false);
    expect(result.execution.state).toBe('FAILED');
    const [run] = runsOf(result.execution, 'poison');
    expect(run?.attempts.map((attempt) => attempt.state)).toEqual(['RESUBMITTED', 'FAILED']);
    expect(run?.error).toBe(LOST_TWICE);
    expect(run?.attempts[1]?.error).toBe(LOST_TWICE);
    expect(historyOf(run)).toBe('CREATED>SUBMITTED>RUNNING>RESUBMITTED>SUBMITTED>RUNNING>FAILED');
    expect(runsOf(result.execution, 'after')).toEqual([]);
  });

  it('still runs when its worker was lost once (a worker restart is no reason to fail)', () => {
    const result = simulateFlow(flow([log('job')]), { script: { job: [{ state: 'LOST' }, { state: 'SUCCESS' }] } });
    expect(result.execution.state).toBe('SUCCESS');
    expect(runsOf(result.execution, 'job')[0]?.attempts.map((attempt) => attempt.state)).toEqual(['RESUBMITTED', 'SUCCESS']);
  });

  it('does not count a job lost before any worker reported it started: it is resent each time', () => {
    const tree = flow([log('job')]);
    let execution = createExecution(tree, { id: 'e', tenant: 'main', inputs: {} }, 0);
    execution = next(tree, execution, { type: 'created' }, 0).execution;
    const taskRunId = runsOf(execution, 'job')[0]?.id ?? '';
    for (const attempt of [1, 2, 3]) {
      const lost = next(tree, execution, { type: 'worker-lost', taskRunId, attempt }, attempt * 1000);
      execution = lost.execution;
      expect(lost.actions.map((action) => action.type)).toEqual(['dispatch']);
    }
    expect(runsOf(execution, 'job')[0]?.attempts.map((attempt) => attempt.state)).toEqual([
      'RESUBMITTED',
      'RESUBMITTED',
      'RESUBMITTED',
      'SUBMITTED',
    ]);
  });

  it('fails through its retry policy, which bounds how often it is sent again', () => {
    const result = simulateFlow(flow([log('job', { retry: constantRetry(1000, 2) })]), { script: { job: { state: 'LOST' } } });
    expect(result.exhausted).toBe(false);
    expect(result.execution.state).toBe('FAILED');
    const attempts = runsOf(result.execution, 'job')[0]?.attempts.map((attempt) => attempt.state);
    expect(attempts?.filter((state) => state === 'FAILED').length).toBeGreaterThanOrEqual(1);
    expect(attempts?.[attempts.length - 1]).toBe('FAILED');
  });
});
