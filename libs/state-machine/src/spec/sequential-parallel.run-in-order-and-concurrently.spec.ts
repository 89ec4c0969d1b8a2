import { listTaskRuns, simulateFlow } from '../index';
import { flow, historyOf, log, parallel, runsOf, sequential, statesByTask } from '../test-support/flows';

describe('Sequential and Parallel', () => {
  it('runs a Sequential flow task after task and ends SUCCESS', () => {
    const result = simulateFlow(flow([log('a'), sequential('group', [log('b'), log('c')]), log('d')]));
    expect(result.execution.state).toBe('SUCCESS');
    const order = listTaskRuns(result.execution).map((run) => run.taskId);
    expect(order).toEqual(['a', 'group', 'b', 'c', 'd']);
    expect(historyOf(runsOf(result.execution, 'b')[0])).toBe('CREATED>SUBMITTED>RUNNING>SUCCESS');
    expect(historyOf(runsOf(result.execution, 'group')[0])).toBe('CREATED>RUNNING>SUCCESS');
    // d starts only after c ended: each task takes 1 s on the virtual clock.
    expect(runsOf(result.execution, 'd')[0]?.histories[0]?.at).toBe(3000);
  });

  it('stops a Sequential at the first failure and fails the execution', () => {
    const result = simulateFlow(flow([log('a'), log('b'), log('c')]), { script: { b: { state: 'FAILED', error: 'exit 1' } } });
    expect(result.execution.state).toBe('FAILED');
    expect(statesByTask(result.execution)).toEqual({ a: 'SUCCESS', b: 'FAILED' });
    expect(runsOf(result.execution, 'b')[0]?.error).toBe('exit 1');
  });

  it('runs Parallel branches at once and keeps at most `concurrency` running', () => {
    const tasks = ['p1', 'p2', 'p3', 'p4', 'p5'].map((id) => log(id));
    const result = simulateFlow(flow([parallel('fan', tasks, 2)]));
    expect(result.execution.state).toBe('SUCCESS');
    expect(listTaskRuns(result.execution)).toHaveLength(6);
    let running = 0;
    let peak = 0;
    for (const entry of result.log) {
      for (const action of entry.actions) if (action.type === 'dispatch') running++;
      if (entry.event.type === 'task-run-result') running--;
      peak = Math.max(peak, running);
    }
    expect(peak).toBe(2);
    // Five 1-second tasks two at a time end at 3 s.
    expect(result.now).toBe(3000);
  });

  it('starts all Parallel branches together when concurrency is 0', () => {
    const result = simulateFlow(flow([parallel('fan', [log('x'), log('y'), log('z')])]));
    expect(result.execution.state).toBe('SUCCESS');
    expect(result.now).toBe(1000);
  });

  it('lets running Parallel branches finish after one fails but starts no new one', () => {
    const result = simulateFlow(flow([parallel('fan', [log('x'), log('y'), log('z')], 2)]), {
      script: { x: { state: 'FAILED', durationMs: 500 } },
    });
    expect(result.execution.state).toBe('FAILED');
    expect(statesByTask(result.execution)).toEqual({ fan: 'FAILED', x: 'FAILED', y: 'SUCCESS' });
  });

  it('ignores a disabled task and skips a task whose runIf is false', () => {
    const result = simulateFlow(flow([log('a', { disabled: true }), log('b', { runIf: 'false' }), log('c')]));
    expect(result.execution.state).toBe('SUCCESS');
    expect(statesByTask(result.execution)).toEqual({ b: 'SKIPPED', c: 'SUCCESS' });
    expect(historyOf(runsOf(result.execution, 'b')[0])).toBe('CREATED>SKIPPED');
  });

  it('turns an allowed failure into WARNING and carries on', () => {
    const result = simulateFlow(flow([log('a', { allowFailure: true }), log('b')]), { script: { a: { state: 'FAILED' } } });
    expect(result.execution.state).toBe('WARNING');
    expect(statesByTask(result.execution)).toEqual({ a: 'WARNING', b: 'SUCCESS' });
  });

  it('turns an allowed warning into SUCCESS', () => {
    const result = simulateFlow(flow([log('a', { allowWarning: true }), log('b')]), { script: { a: { state: 'WARNING' } } });
    expect(result.execution.state).toBe('SUCCESS');
    expect(statesByTask(result.execution)).toEqual({ a: 'SUCCESS', b: 'SUCCESS' });
  });

  it('ends WARNING when a task warns', () => {
    const result = simulateFlow(flow([log('a'), log('b')]), { script: { a: { state: 'WARNING' } } });
    expect(result.execution.state).toBe('WARNING');
  });

  it('ends an empty flow SUCCESS at once', () => {
    const result = simulateFlow(flow([log('only', { disabled: true })]));
    expect(result.execution.state).toBe('SUCCESS');
    expect(listTaskRuns(result.execution)).toHaveLength(0);
  });
});
