import { simulateFlow } from '../index';
import { flow, outputValues, runsOf, waitFor } from '../test-support/flows';

// Kestra's WaitFor output `iterationCount`: its children read the iteration
// they run in (1 first) as `outputs.<waitFor>.iterationCount`.
describe('WaitFor iterationCount', () => {
  it('is readable by its children and by its condition, and ends as the number of iterations run', () => {
    const loop = waitFor(
      'loop',
      '{{ outputs.seen.values.count == "3" }}',
      [outputValues('seen', { count: '{{ outputs.loop.iterationCount }}' })],
      { intervalMs: 1000 },
    );
    const result = simulateFlow(flow([loop]));
    expect(result.execution.state).toBe('SUCCESS');
    expect(runsOf(result.execution, 'seen').map((run) => (run.outputs as { values: { count: string } }).values.count)).toEqual([
      '1',
      '2',
      '3',
    ]);
    expect(runsOf(result.execution, 'loop')[0]?.outputs).toEqual({ iterationCount: 3 });
  });
});
