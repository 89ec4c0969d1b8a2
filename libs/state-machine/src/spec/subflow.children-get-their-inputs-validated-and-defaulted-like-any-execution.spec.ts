import type { FlowInput } from '@lanner/model';
import { simulateFlow } from '../index';
import { flow, log, runsOf, subflow } from '../test-support/flows';

// A Subflow's child execution gets its inputs checked and defaulted against its
// own flow like any execution (`startSubflowChild`, which the executor applies
// when it creates the child). Inputs that do not match fail the Subflow task
// with the problem, even without transmitFailed: no child ran.
const report = (inputs: FlowInput[]) => ({
  state: 'SUCCESS' as const,
  flow: { namespace: 'company.team', id: 'report', inputs },
});
const REGION: FlowInput = { id: 'region', type: 'STRING', required: true };
const DAYS: FlowInput = { id: 'days', type: 'INT', required: false, defaults: '7' };

describe('a Subflow child gets its inputs validated and defaulted like any execution', () => {
  it('starts the child with the defaults of its flow and the given values converted to their types', () => {
    const result = simulateFlow(flow([subflow('child', 'report', { inputs: { region: 'eu' } }), log('after')]), {
      subflows: { 'company.team.report': report([REGION, DAYS]) },
    });
    expect(result.execution.state).toBe('SUCCESS');
    expect(result.childExecutions).toEqual([
      {
        executionId: runsOf(result.execution, 'child')[0]?.subflowExecutionId,
        flow: 'company.team.report',
        inputs: { region: 'eu', days: 7 },
      },
    ]);
  });

  it('fails the task with the reason when a required input is missing, and runs no child', () => {
    const result = simulateFlow(flow([subflow('child', 'report'), log('after')]), {
      subflows: { 'company.team.report': report([REGION]) },
    });
    expect(result.execution.state).toBe('FAILED');
    expect(runsOf(result.execution, 'child')[0]?.error).toBe(
      'The inputs do not match the flow company.team.report: inputs.region: required',
    );
    expect(result.childExecutions).toEqual([]);
    expect(runsOf(result.execution, 'after')).toHaveLength(0);
  });

  it('refuses an input the child flow does not declare', () => {
    const result = simulateFlow(flow([subflow('child', 'report', { inputs: { region: 'eu', regoin: 'us' } })]), {
      subflows: { 'company.team.report': report([REGION]) },
    });
    expect(runsOf(result.execution, 'child')[0]?.error).toMatch(
      /^The inputs do not match the flow company\.team\.report: inputs\.regoin: unknown input/,
    );
  });

  it('refuses a value that does not convert to the declared type', () => {
    const result = simulateFlow(flow([subflow('child', 'report', { inputs: { region: 'eu', days: 'seven' } })]), {
      subflows: { 'company.team.report': report([REGION, DAYS]) },
    });
    expect(result.execution.state).toBe('FAILED');
    expect(runsOf(result.execution, 'child')[0]?.error).toContain('inputs.days');
  });

  it('fails even when transmitFailed is off', () => {
    const result = simulateFlow(flow([subflow('child', 'report', { transmitFailed: false })]), {
      subflows: { 'company.team.report': report([REGION]) },
    });
    expect(result.execution.state).toBe('FAILED');
  });
});
