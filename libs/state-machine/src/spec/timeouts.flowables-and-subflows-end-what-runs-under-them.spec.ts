import { simulateFlow } from '../index';
import type { ExecutionAction } from '../lib/types';
import { flow, historyOf, log, parallel, pause, runsOf, sequential, statesByTask, subflow } from '../test-support/flows';

const timerActions = (actions: readonly ExecutionAction[], taskRunId: string | undefined) =>
  actions.flatMap((action) => {
    if (action.type === 'schedule-timer' && action.timer.taskRunId === taskRunId && action.timer.kind === 'task-timeout')
      return [`schedule ${action.timer.id}`];
    if (action.type === 'cancel-timer' && action.timerId.startsWith(`${taskRunId}|task-timeout|`))
      return [`cancel ${action.timerId}`];
    return [];
  });

// Kestra applies `timeout` to every task (kestra-io/kestra#6739); a flowable's
// covers everything that runs under it, from its start.
describe('the timeout of a flowable task', () => {
  it('fails the flowable on time, kills what runs under it and starts nothing more of it', () => {
    const result = simulateFlow(flow([sequential('steps', [log('stuck'), log('never')], { timeoutMs: 30_000 }), log('after')]), {
      script: { stuck: { state: 'HANG' } },
    });
    expect(result.execution.state).toBe('FAILED');
    const [steps] = runsOf(result.execution, 'steps');
    expect(historyOf(steps)).toBe('CREATED>RUNNING>FAILED');
    expect(steps?.histories.at(-1)?.at).toBe(30_000);
    expect(steps?.error).toBe('Timed out after PT30S');
    const [stuck] = runsOf(result.execution, 'stuck');
    expect(historyOf(stuck)).toBe('CREATED>SUBMITTED>RUNNING>KILLING>KILLED');
    expect(stuck?.attempts.map((attempt) => attempt.state)).toEqual(['KILLED']);
    expect(result.actions).toContainEqual({ type: 'kill-job', taskRunId: stuck?.id, attempt: 1 });
    expect(runsOf(result.execution, 'never')).toHaveLength(0);
    expect(runsOf(result.execution, 'after')).toHaveLength(0);
    expect(result.execution.liveTaskRuns.size).toBe(0);
  });

  it('lets the flowable end in time, and its timer goes with it', () => {
    const result = simulateFlow(flow([sequential('steps', [log('one'), log('two')], { timeoutMs: 30_000 })]));
    expect(result.execution.state).toBe('SUCCESS');
    const [steps] = runsOf(result.execution, 'steps');
    expect(timerActions(result.actions, steps?.id)).toEqual([
      `schedule ${steps?.id}|task-timeout|1`,
      `cancel ${steps?.id}|task-timeout|1`,
    ]);
  });

  it('with allowFailure, ends in WARNING and the flow goes on; a paused task under it no longer holds the execution', () => {
    const result = simulateFlow(
      flow([parallel('fan', [log('slow'), pause('approval')], 0, { timeoutMs: 10_000, allowFailure: true }), log('after')]),
      {
        script: { slow: { state: 'HANG' } },
      },
    );
    expect(result.execution.state).toBe('WARNING');
    expect(result.execution.histories.map((change) => change.state)).toEqual([
      'CREATED',
      'RUNNING',
      'PAUSED',
      'RUNNING',
      'WARNING',
    ]);
    expect(statesByTask(result.execution)).toEqual({ fan: 'WARNING', slow: 'KILLED', approval: 'KILLED', after: 'SUCCESS' });
    expect(runsOf(result.execution, 'fan')[0]?.error).toBe('Timed out after PT10S');
    expect(runsOf(result.execution, 'after')[0]?.histories[0]?.at).toBe(10_000);
  });

  it('kills flowables nested under it (their own timers cancelled), and the errors branch of what contains it runs', () => {
    const inner = sequential('inner', [log('stuck')], { timeoutMs: 600_000 });
    const result = simulateFlow(flow([sequential('outer', [inner], { timeoutMs: 60_000 })], { errors: [log('alert')] }), {
      script: { stuck: { state: 'HANG' } },
    });
    expect(result.execution.state).toBe('FAILED');
    expect(statesByTask(result.execution)).toEqual({ outer: 'FAILED', inner: 'KILLED', stuck: 'KILLED', alert: 'SUCCESS' });
    const [innerRun] = runsOf(result.execution, 'inner');
    expect(historyOf(innerRun)).toBe('CREATED>RUNNING>KILLING>KILLED');
    expect(timerActions(result.actions, innerRun?.id)).toEqual([
      `schedule ${innerRun?.id}|task-timeout|1`,
      `cancel ${innerRun?.id}|task-timeout|1`,
    ]);
    expect(runsOf(result.execution, 'alert')[0]?.histories[0]?.at).toBe(60_000);
  });

  it('counts its errors and finally branches in, so a hanging cleanup cannot outlive it', () => {
    const result = simulateFlow(
      flow([sequential('steps', [log('broken')], { timeoutMs: 20_000, errors: [log('hanging-cleanup')] })]),
      {
        script: { broken: { state: 'FAILED', durationMs: 1000 }, 'hanging-cleanup': { state: 'HANG' } },
      },
    );
    expect(result.execution.state).toBe('FAILED');
    expect(statesByTask(result.execution)).toEqual({ steps: 'FAILED', broken: 'FAILED', 'hanging-cleanup': 'KILLED' });
    expect(runsOf(result.execution, 'steps')[0]?.error).toBe('Timed out after PT20S');
  });

  it('gives a restarted flowable a fresh timeout, numbered by its restart', () => {
    const result = simulateFlow(flow([sequential('steps', [log('flaky')], { timeoutMs: 5_000 })]), {
      script: { flaky: [{ state: 'HANG' }, { state: 'SUCCESS' }] },
      events: [{ at: 60_000, event: { type: 'restart-requested' } }],
    });
    expect(result.execution.state).toBe('SUCCESS');
    const [steps] = runsOf(result.execution, 'steps');
    expect(historyOf(steps)).toBe('CREATED>RUNNING>FAILED>RESTARTED>RUNNING>SUCCESS');
    expect(timerActions(result.actions, steps?.id)).toEqual([
      `schedule ${steps?.id}|task-timeout|1`,
      `schedule ${steps?.id}|task-timeout|2`,
      `cancel ${steps?.id}|task-timeout|2`,
    ]);
  });

  it('changes nothing once the execution is being killed: the kill ends the flowable, and its timer goes', () => {
    const result = simulateFlow(flow([sequential('steps', [log('stuck')], { timeoutMs: 30_000 })]), {
      script: { stuck: { state: 'HANG' } },
      events: [{ at: 1000, event: { type: 'kill-requested' } }],
    });
    expect(result.execution.state).toBe('KILLED');
    const [steps] = runsOf(result.execution, 'steps');
    expect(historyOf(steps)).toBe('CREATED>RUNNING>KILLING>KILLED');
    expect(steps?.error).toBeUndefined();
    expect(timerActions(result.actions, steps?.id)).toEqual([
      `schedule ${steps?.id}|task-timeout|1`,
      `cancel ${steps?.id}|task-timeout|1`,
    ]);
  });
});

describe('the timeout of a Subflow that waits for its execution', () => {
  it('kills the child execution and fails the task when the child runs too long', () => {
    const result = simulateFlow(flow([{ ...subflow('child', 'nightly', { wait: true }), timeoutMs: 60_000 }, log('after')]), {
      subflows: { 'company.team.nightly': { state: 'SUCCESS', durationMs: 120_000 } },
    });
    expect(result.execution.state).toBe('FAILED');
    const [child] = runsOf(result.execution, 'child');
    expect(historyOf(child)).toBe('CREATED>RUNNING>FAILED');
    expect(child?.histories.at(-1)?.at).toBe(60_000);
    expect(child?.error).toBe(`Timed out after PT60S: the subflow execution '${child?.subflowExecutionId}' had not ended`);
    expect(result.actions).toContainEqual({ type: 'kill-subflow', executionId: child?.subflowExecutionId });
    expect(runsOf(result.execution, 'after')).toHaveLength(0);
  });

  it('cancels its timer when the child ends in time', () => {
    const result = simulateFlow(flow([{ ...subflow('child', 'nightly', { wait: true }), timeoutMs: 60_000 }]), {
      subflows: { 'company.team.nightly': { state: 'SUCCESS', durationMs: 1000 } },
    });
    expect(result.execution.state).toBe('SUCCESS');
    const [child] = runsOf(result.execution, 'child');
    expect(timerActions(result.actions, child?.id)).toEqual([
      `schedule ${child?.id}|task-timeout|1`,
      `cancel ${child?.id}|task-timeout|1`,
    ]);
  });
});
