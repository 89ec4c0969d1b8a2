import { simulateFlow } from '../index';
import { flow, log, runsOf, subflow } from '../test-support/flows';

// A Subflow's child execution gets its inputs checked and defaulted like any
// execution (the executor does it when it creates the child). Inputs that do
// not match fail the Subflow task with the problem, even without
// transmitFailed: no child ran.
describe('a Subflow whose child cannot start', () => {
  const refused = {
    state: 'FAILED',
    durationMs: 0,
    error: 'The inputs do not match the flow company.team.report: inputs.region: required',
  } as const;

  it('fails with the reason the child was refused', () => {
    const result = simulateFlow(flow([subflow('child', 'report'), log('after')]), {
      subflows: { 'company.team.report': refused },
    });
    expect(result.execution.state).toBe('FAILED');
    expect(runsOf(result.execution, 'child')[0]?.error).toBe(refused.error);
    expect(runsOf(result.execution, 'after')).toHaveLength(0);
  });

  it('fails even when transmitFailed is off', () => {
    const result = simulateFlow(flow([subflow('child', 'report', { transmitFailed: false })]), {
      subflows: { 'company.team.report': refused },
    });
    expect(result.execution.state).toBe('FAILED');
  });
});
