import type { Task } from '@lanner/model';
import { simulateFlow } from '../index';
import { flow, log, runsOf, subflow } from '../test-support/flows';

// Kestra's deprecated Subflow `outputs` map is rendered against the child
// execution once it ended (its task outputs, inputs and identity), when the
// child's flow declares no outputs of its own; the result is the task's
// `outputs.<task>.outputs`. A map that does not render fails the task.
const withMap = (outputs: Record<string, string>, extra: Partial<Task> = {}): Task =>
  ({ ...subflow('call', 'report'), outputs, ...extra }) as Task;

const childContext = {
  execution: { id: 'child-1' },
  inputs: { region: 'eu' },
  outputs: { last: { value: 'done' } },
};

describe("a Subflow's deprecated outputs map", () => {
  it('is rendered against the ended child and becomes the task outputs', () => {
    const result = simulateFlow(
      flow([withMap({ got: '{{ outputs.last.value }} in {{ inputs.region }}', child: '{{ execution.id }}' }), log('after')]),
      { subflows: { 'company.team.report': { state: 'SUCCESS', context: childContext } } },
    );
    expect(result.execution.state).toBe('SUCCESS');
    const outputs = runsOf(result.execution, 'call')[0]?.outputs as Record<string, unknown>;
    expect(outputs['outputs']).toEqual({ got: 'done in eu', child: 'child-1' });
    expect(outputs['state']).toBe('SUCCESS');
  });

  it('fails the task, naming the expression, when it does not render', () => {
    const result = simulateFlow(flow([withMap({ got: '{{ outputs.missing.value }}' }), log('after')]), {
      subflows: { 'company.team.report': { state: 'SUCCESS', context: childContext } },
    });
    expect(result.execution.state).toBe('FAILED');
    const [call] = runsOf(result.execution, 'call');
    expect(call?.state).toBe('FAILED');
    expect(call?.error).toMatch(/^outputs: Cannot render \{\{ outputs\.missing\.value \}\}/);
    expect(runsOf(result.execution, 'after')).toHaveLength(0);
  });

  it('ends WARNING on a render failure when the task allows failure', () => {
    const result = simulateFlow(flow([withMap({ got: '{{ nope }}' }, { allowFailure: true })]), {
      subflows: { 'company.team.report': { state: 'SUCCESS', context: childContext } },
    });
    expect(runsOf(result.execution, 'call')[0]?.state).toBe('WARNING');
  });

  it("is not read when the child's flow has outputs of its own (no context comes with its end)", () => {
    const result = simulateFlow(flow([withMap({ got: '{{ nope }}' })]), {
      subflows: { 'company.team.report': { state: 'SUCCESS', outputs: { greeting: 'hi' } } },
    });
    expect(result.execution.state).toBe('SUCCESS');
    expect((runsOf(result.execution, 'call')[0]?.outputs as Record<string, unknown>)['outputs']).toEqual({ greeting: 'hi' });
  });
});
