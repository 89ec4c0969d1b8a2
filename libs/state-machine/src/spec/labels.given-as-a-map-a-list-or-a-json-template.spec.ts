import { simulateFlow } from '../index';
import { flow, labelsTask, runsOf } from '../test-support/flows';

// Kestra's Labels task takes a map, a list of { key, value }, or a string that
// renders to JSON of either shape.
describe('Labels given as one template', () => {
  it('renders it, parses the JSON object and adds its entries', () => {
    const task = labelsTask('tag', '{{ inputs.labels }}');
    const result = simulateFlow(flow([task]), { inputs: { labels: '{"team":"data","tier":2}' } });
    expect(result.execution.state).toBe('SUCCESS');
    expect(result.execution.labels).toEqual({ team: 'data', tier: '2' });
  });

  it('reads a rendered list of { key, value }', () => {
    const task = labelsTask('tag', '[{"key":"team","value":"data"}]');
    expect(simulateFlow(flow([task])).execution.labels).toEqual({ team: 'data' });
  });

  it('fails, saying why, when the rendered text is not JSON', () => {
    const task = labelsTask('tag', '{{ inputs.labels }}');
    const result = simulateFlow(flow([task]), { inputs: { labels: 'team=data' } });
    expect(result.execution.state).toBe('FAILED');
    expect(runsOf(result.execution, 'tag')[0]?.error).toMatch(/not JSON/);
  });
});
