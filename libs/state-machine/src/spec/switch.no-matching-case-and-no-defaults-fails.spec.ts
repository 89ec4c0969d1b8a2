import { simulateFlow } from '../index';
import { flow, log, runsOf, statesByTask, switchTask } from '../test-support/flows';

// Kestra: a Switch whose value matches no case and that has no `defaults` has
// no task to run, logs "No task found" and fails (FlowableUtils.resolveState).
describe('Switch with no matching case and no defaults', () => {
  it('fails, saying no task was found, and the flow fails with it', () => {
    const result = simulateFlow(flow([switchTask('route', '{{ inputs.kind }}', { a: [log('on-a')] }), log('after')]), {
      inputs: { kind: 'z' },
    });
    expect(result.execution.state).toBe('FAILED');
    expect(runsOf(result.execution, 'route')[0]?.error).toMatch(/^No task found/);
    expect(statesByTask(result.execution)).toEqual({ route: 'FAILED' });
  });

  it('still runs the defaults when there are some', () => {
    const result = simulateFlow(flow([switchTask('route', '{{ inputs.kind }}', { a: [log('on-a')] }, [log('fallback')])]), {
      inputs: { kind: 'z' },
    });
    expect(result.execution.state).toBe('SUCCESS');
    expect(statesByTask(result.execution)).toEqual({ route: 'SUCCESS', fallback: 'SUCCESS' });
  });

  it('ends WARNING under allowFailure', () => {
    const route = { ...switchTask('route', 'z', { a: [log('on-a')] }), allowFailure: true };
    const result = simulateFlow(flow([route, log('after')]));
    expect(result.execution.state).toBe('WARNING');
    expect(statesByTask(result.execution)).toEqual({ route: 'WARNING', after: 'SUCCESS' });
  });
});
