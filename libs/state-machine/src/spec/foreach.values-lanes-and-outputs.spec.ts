import { listTaskRuns, simulateFlow } from '../index';
import { flow, forEach, log, outputValues, runsOf } from '../test-support/flows';

describe('ForEach', () => {
  it('runs its tasks once per value, one value at a time with limit 1', () => {
    const result = simulateFlow(flow([forEach('each', ['a', 'b', 'c'], [log('say'), log('done')], 1)]));
    expect(result.execution.state).toBe('SUCCESS');
    const says = runsOf(result.execution, 'say');
    expect(says.map((run) => run.value)).toEqual(['a', 'b', 'c']);
    expect(runsOf(result.execution, 'done')).toHaveLength(3);
    expect(result.now).toBe(6000);
  });

  it('runs up to concurrencyLimit values at once; 0 means all', () => {
    const values = ['1', '2', '3', '4', '5', '6'];
    expect(simulateFlow(flow([forEach('each', values, [log('say')], 3)])).now).toBe(2000);
    expect(simulateFlow(flow([forEach('each', values, [log('say')], 0)])).now).toBe(1000);
  });

  it('renders values from a template and stringifies non-string items', () => {
    const result = simulateFlow(flow([forEach('each', '{{ inputs.items }}', [log('say')], 0)]), {
      inputs: { items: [1, { k: 'v' }] },
    });
    expect(runsOf(result.execution, 'say').map((run) => run.value)).toEqual(['1', '{"k":"v"}']);
  });

  it('keeps outputs per value (outputs.<task>[value])', () => {
    const result = simulateFlow(
      flow([forEach('each', ['x', 'y'], [outputValues('compute', { v: '{{ taskrun.value }}' })], 0)], {
        outputs: [{ id: 'all', type: 'JSON', value: '{{ outputs.compute }}' }],
      }),
    );
    expect(result.execution.state).toBe('SUCCESS');
    expect(result.execution.outputs).toEqual({ all: { x: { values: { v: 'x' } }, y: { values: { v: 'y' } } } });
  });

  it('starts no new value after one failed and ends FAILED', () => {
    const result = simulateFlow(flow([forEach('each', ['a', 'b', 'c', 'd'], [log('say')], 2)]), {
      script: { say: { perValue: { a: { state: 'FAILED' } } } },
    });
    expect(result.execution.state).toBe('FAILED');
    expect(runsOf(result.execution, 'say').map((run) => `${run.value}:${run.state}`)).toEqual(['a:FAILED', 'b:SUCCESS']);
  });

  it('ends an empty ForEach SUCCESS with no child', () => {
    const result = simulateFlow(flow([forEach('each', [], [log('say')])]));
    expect(result.execution.state).toBe('SUCCESS');
    expect(listTaskRuns(result.execution)).toHaveLength(1);
  });

  it('nests ForEach and exposes the enclosing values', () => {
    const result = simulateFlow(flow([forEach('outer', ['a', 'b'], [forEach('inner', ['1', '2'], [log('leaf')], 0)], 0)]));
    expect(result.execution.state).toBe('SUCCESS');
    expect(runsOf(result.execution, 'leaf').map((run) => run.forEachValues?.join('/'))).toEqual(['a/1', 'a/2', 'b/1', 'b/2']);
    expect(listTaskRuns(result.execution)).toHaveLength(1 + 2 + 4);
  });

  it('runs a ForEach of 10,000 values to the end', () => {
    const values = Array.from({ length: 10_000 }, (_, i) => `v${i}`);
    const result = simulateFlow(flow([forEach('each', values, [log('work')], 100)]), { defaultDurationMs: 10 });
    expect(result.execution.state).toBe('SUCCESS');
    expect(result.execution.taskRuns.size).toBe(10_001);
    expect(result.execution.liveTaskRuns.size).toBe(0);
    expect(result.now).toBe(1000);
  });
});
