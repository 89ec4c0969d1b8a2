import { simulateFlow } from '../index';
import { flow, forEach, log, parallel, runsOf, switchTask } from '../test-support/flows';

// Kestra (FlowableUtils.resolveParallelNexts) creates the task runs of every
// free slot in one go: with no limit, every lane exists from the start, so a
// lane that fails at once does not keep the others from being created. A
// Switch matching no case (and without defaults) fails as it starts.
const failsAtOnce = (id: string, value = 'none') => switchTask(id, value, { some: [log(`${id}-case`)] });

describe('lanes started together', () => {
  it('Parallel without a limit creates every lane even when the first fails at once', () => {
    const result = simulateFlow(flow([parallel('fan', [failsAtOnce('boom'), log('a'), log('b')])]));
    expect(result.execution.state).toBe('FAILED');
    expect(runsOf(result.execution, 'boom').map((run) => run.state)).toEqual(['FAILED']);
    expect(runsOf(result.execution, 'a').map((run) => run.state)).toEqual(['SUCCESS']);
    expect(runsOf(result.execution, 'b').map((run) => run.state)).toEqual(['SUCCESS']);
  });

  it('ForEach without a limit creates a lane per value even when one fails at once', () => {
    const body = [switchTask('route', '{{ taskrun.value }}', { b: [log('on-b')], c: [log('on-c')] })];
    const result = simulateFlow(flow([forEach('each', ['a', 'b', 'c'], body, 0)]));
    expect(result.execution.state).toBe('FAILED');
    expect(runsOf(result.execution, 'route').map((run) => [run.value, run.state])).toEqual([
      ['a', 'FAILED'],
      ['b', 'SUCCESS'],
      ['c', 'SUCCESS'],
    ]);
  });

  it('a limit of one still stops at the first failure', () => {
    const result = simulateFlow(flow([parallel('fan', [failsAtOnce('boom'), log('a')], 1)]));
    expect(result.execution.state).toBe('FAILED');
    expect(runsOf(result.execution, 'a')).toHaveLength(0);
  });

  it('a limit of two creates both first lanes, and no later one after the failure', () => {
    const result = simulateFlow(flow([parallel('fan', [failsAtOnce('boom'), log('a'), log('b')], 2)]));
    expect(runsOf(result.execution, 'a')).toHaveLength(1);
    expect(runsOf(result.execution, 'b')).toHaveLength(0);
  });
});
