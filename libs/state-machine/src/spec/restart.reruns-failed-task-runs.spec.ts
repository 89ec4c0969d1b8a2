import { next, simulateFlow } from '../index';
import { flow, forEach, historyOf, log, runsOf, sequential, statesByTask } from '../test-support/flows';

const FAIL = { state: 'FAILED' as const, error: 'disk full' };
const OK = { state: 'SUCCESS' as const };

describe('restart', () => {
  it('re-runs the failed task run as a new attempt and ends SUCCESS', () => {
    const result = simulateFlow(flow([log('a'), sequential('group', [log('b'), log('c')]), log('d')]), {
      script: { c: [FAIL, OK] },
      events: [{ at: 60_000, event: { type: 'restart-requested' } }],
    });
    expect(result.execution.state).toBe('SUCCESS');
    expect(result.execution.histories.map((change) => change.state)).toEqual([
      'CREATED',
      'RUNNING',
      'FAILED',
      'RESTARTED',
      'RUNNING',
      'SUCCESS',
    ]);
    const [c] = runsOf(result.execution, 'c');
    expect(c?.attempts.map((attempt) => attempt.state)).toEqual(['FAILED', 'SUCCESS']);
    expect(historyOf(c)).toBe('CREATED>SUBMITTED>RUNNING>FAILED>RESTARTED>SUBMITTED>RUNNING>SUCCESS');
    expect(historyOf(runsOf(result.execution, 'group')[0])).toBe('CREATED>RUNNING>FAILED>RESTARTED>RUNNING>SUCCESS');
    // a and b are not run again; d runs for the first time.
    expect(runsOf(result.execution, 'a')[0]?.attempts).toHaveLength(1);
    expect(runsOf(result.execution, 'b')[0]?.attempts).toHaveLength(1);
    expect(statesByTask(result.execution)).toEqual({ a: 'SUCCESS', group: 'SUCCESS', b: 'SUCCESS', c: 'SUCCESS', d: 'SUCCESS' });
  });

  it('re-runs only the failed ForEach values and then the values never started', () => {
    const result = simulateFlow(flow([forEach('each', ['1', '2', '3', '4'], [log('say')], 2)]), {
      script: { say: { perValue: { '2': [FAIL, OK] } } },
      events: [{ at: 60_000, event: { type: 'restart-requested' } }],
    });
    expect(result.execution.state).toBe('SUCCESS');
    const says = runsOf(result.execution, 'say');
    expect(says.map((run) => `${run.value}:${run.attempts.length}`)).toEqual(['1:1', '2:2', '3:1', '4:1']);
  });

  it('restarts a killed execution', () => {
    const result = simulateFlow(flow([log('a'), log('b')]), {
      script: { a: [{ state: 'HANG' }, OK] },
      events: [
        { at: 100, event: { type: 'kill-requested' } },
        { at: 5000, event: { type: 'restart-requested' } },
      ],
    });
    expect(result.execution.state).toBe('SUCCESS');
    expect(statesByTask(result.execution)).toEqual({ a: 'SUCCESS', b: 'SUCCESS' });
  });

  it('runs the errors branch again with fresh task runs when the restarted run fails again', () => {
    const result = simulateFlow(flow([log('a')], { errors: [log('alert')] }), {
      script: { a: FAIL },
      events: [{ at: 60_000, event: { type: 'restart-requested' } }],
    });
    expect(result.execution.state).toBe('FAILED');
    expect(runsOf(result.execution, 'alert').map((run) => run.id)).toEqual(['exec:alert', 'exec:alert~r1']);
  });

  it('refuses nothing but changes nothing when the execution is not ended', () => {
    const tree = flow([log('a')]);
    const running = simulateFlow(tree, { script: { a: { state: 'HANG' } } }).execution;
    expect(next(tree, running, { type: 'restart-requested' }, 1).execution).toBe(running);
  });
});
