import { simulateFlow } from '../index';
import { flow, forEach, log, runsOf } from '../test-support/flows';

// Kestra (FlowableUtils.resolveEachTasks): the values are made distinct, and
// any null among them fails the ForEach before a child is created.
describe('ForEach values', () => {
  it('fails on a null value, creating no child, with a message that counts them', () => {
    const result = simulateFlow(flow([forEach('each', '{{ inputs.list }}', [log('item')])]), {
      inputs: { list: ['a', null, 'b'] },
    });
    expect(result.execution.state).toBe('FAILED');
    expect(runsOf(result.execution, 'each')[0]?.error).toMatch(/found 1 null value in the ForEach values/);
    expect(runsOf(result.execution, 'item')).toHaveLength(0);
  });

  it('fails on a null in a written list too', () => {
    const result = simulateFlow(flow([forEach('each', ['a', null], [log('item')])]));
    expect(result.execution.state).toBe('FAILED');
  });

  it('runs a repeated value once', () => {
    const result = simulateFlow(flow([forEach('each', ['a', 'b', 'a', 'b'], [log('item')])]));
    expect(result.execution.state).toBe('SUCCESS');
    expect(runsOf(result.execution, 'item').map((run) => run.value)).toEqual(['a', 'b']);
  });
});
