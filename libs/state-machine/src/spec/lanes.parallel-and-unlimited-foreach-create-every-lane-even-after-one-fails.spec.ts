import { simulateFlow } from '../index';
import { failTask, flow, forEach, log, parallel, runsOf } from '../test-support/flows';

// Kestra (FlowableUtils.resolveParallelNexts) creates the task runs of every
// free slot in one go: with no limit, every lane exists from the start, so a
// lane that fails at once does not keep the others from being created.
describe('lanes started together', () => {
  it('Parallel without a limit creates every lane even when the first fails at once', () => {
    const result = simulateFlow(flow([parallel('fan', [failTask('boom', 'no'), log('a'), log('b')])]));
    expect(result.execution.state).toBe('FAILED');
    expect(runsOf(result.execution, 'a').map((run) => run.state)).toEqual(['SUCCESS']);
    expect(runsOf(result.execution, 'b').map((run) => run.state)).toEqual(['SUCCESS']);
  });

  it('ForEach without a limit creates a lane per value even when one fails at once', () => {
    const body = [failTask('stop', 'x', "{{ taskrun.value == 'a' }}")];
    const result = simulateFlow(flow([forEach('each', ['a', 'b', 'c'], body, 0)]));
    expect(result.execution.state).toBe('FAILED');
    expect(runsOf(result.execution, 'stop').map((run) => [run.value, run.state])).toEqual([
      ['a', 'FAILED'],
      ['b', 'SUCCESS'],
      ['c', 'SUCCESS'],
    ]);
  });

  it('a limit of one still stops at the first failure', () => {
    const result = simulateFlow(flow([parallel('fan', [failTask('boom', 'no'), log('a')], 1)]));
    expect(result.execution.state).toBe('FAILED');
    expect(runsOf(result.execution, 'a')).toHaveLength(0);
  });
});
