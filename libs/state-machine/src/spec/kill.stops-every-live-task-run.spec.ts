import { next, simulateFlow } from '../index';
import { constantRetry, flow, forEach, historyOf, log, parallel, pause, runsOf, statesByTask } from '../test-support/flows';

describe('kill', () => {
  it('kills running jobs, then the execution is KILLED once none is live', () => {
    const result = simulateFlow(flow([parallel('fan', [log('a'), log('b')]), log('after')], { finally: [log('cleanup')] }), {
      script: { a: { state: 'HANG' }, b: { state: 'HANG' } },
      events: [{ at: 500, event: { type: 'kill-requested' } }],
    });
    expect(result.execution.state).toBe('KILLED');
    expect(result.execution.histories.map((change) => change.state)).toEqual(['CREATED', 'RUNNING', 'KILLING', 'KILLED']);
    expect(statesByTask(result.execution)).toEqual({ fan: 'KILLED', a: 'KILLED', b: 'KILLED' });
    expect(historyOf(runsOf(result.execution, 'a')[0])).toBe('CREATED>SUBMITTED>RUNNING>KILLING>KILLED');
    expect(result.actions.filter((action) => action.type === 'kill-job')).toHaveLength(2);
  });

  it('starts no new ForEach value once killing', () => {
    const result = simulateFlow(flow([forEach('each', ['1', '2', '3'], [log('say')], 1)]), {
      events: [{ at: 1500, event: { type: 'kill-requested' } }],
    });
    expect(result.execution.state).toBe('KILLED');
    expect(runsOf(result.execution, 'say').map((run) => run.state)).toEqual(['SUCCESS', 'KILLED']);
  });

  it('kills a paused execution', () => {
    const result = simulateFlow(flow([pause('approval')]), { events: [{ at: 10, event: { type: 'kill-requested' } }] });
    expect(result.execution.state).toBe('KILLED');
    expect(historyOf(runsOf(result.execution, 'approval')[0])).toBe('CREATED>RUNNING>PAUSED>RUNNING>KILLING>KILLED');
  });

  it('cancels a queued execution', () => {
    const tree = { ...flow([log('a')]), concurrency: { limit: 1, behavior: 'QUEUE' as const } };
    const result = simulateFlow(tree, { runningExecutions: 1, events: [{ at: 10, event: { type: 'kill-requested' } }] });
    expect(result.execution.state).toBe('CANCELLED');
    expect(result.execution.histories.map((change) => change.state)).toEqual(['CREATED', 'QUEUED', 'CANCELLED']);
  });

  it('drops results that arrive after the execution was killed', () => {
    const result = simulateFlow(flow([log('a')]), {
      script: { a: { state: 'HANG' } },
      events: [{ at: 10, event: { type: 'kill-requested' } }],
    });
    const run = runsOf(result.execution, 'a')[0];
    const late = next(
      flow([log('a')]),
      result.execution,
      { type: 'task-run-result', taskRunId: run?.id ?? '', attempt: 1, state: 'SUCCESS' },
      99_000,
    );
    expect(late.execution).toBe(result.execution);
    expect(late.actions).toEqual([]);
  });

  it('kills a task run waiting for its retry, and the retry timer firing later changes nothing (Kestra #19679)', () => {
    const tree = flow([log('flaky', { retry: constantRetry(60_000, 3) })]);
    const result = simulateFlow(tree, {
      script: { flaky: { state: 'FAILED' } },
      events: [{ at: 5000, event: { type: 'kill-requested' } }],
    });
    expect(result.execution.state).toBe('KILLED');
    const [run] = runsOf(result.execution, 'flaky');
    expect(historyOf(run)).toBe('CREATED>SUBMITTED>RUNNING>FAILED>RETRYING>SUBMITTED>KILLED');
    expect(result.actions).toContainEqual({ type: 'cancel-timer', timerId: `${run?.id}|retry|1` });
    const timer = { id: `${run?.id}|retry|1`, kind: 'retry' as const, at: 61_000, taskRunId: run?.id ?? '', attempt: 1 };
    const late = next(tree, result.execution, { type: 'timer-fired', timer }, 61_000);
    expect(late.execution).toBe(result.execution);
    expect(late.actions).toEqual([]);
  });
});
