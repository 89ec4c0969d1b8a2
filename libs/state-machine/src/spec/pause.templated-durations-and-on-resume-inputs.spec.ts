import { simulateFlow } from '../index';
import { flow, log, pause, runsOf } from '../test-support/flows';

describe('Pause', () => {
  it('renders a templated pauseDuration when it starts', () => {
    const wait = { ...pause('wait'), pauseDurationMs: '{{ inputs.wait }}' };
    const result = simulateFlow(flow([wait, log('after')]), { inputs: { wait: 'PT30S' } });
    expect(result.execution.state).toBe('SUCCESS');
    expect(runsOf(result.execution, 'after')[0]?.histories[0]?.at).toBe(30_000);
  });

  it('fails, naming the property, when the template does not render to a duration', () => {
    const wait = { ...pause('wait'), pauseTimeoutMs: '{{ inputs.wait }}' };
    const result = simulateFlow(flow([wait]), { inputs: { wait: 'soon' } });
    expect(result.execution.state).toBe('FAILED');
    expect(runsOf(result.execution, 'wait')[0]?.error).toBe(
      "timeout: 'soon' is not an ISO-8601 duration longer than zero (such as PT30S)",
    );
  });

  it('checks and defaults the resume inputs against onResume, its outputs under onResume as in Kestra', () => {
    const wait = {
      ...pause('wait'),
      onResume: [
        { id: 'approved', type: 'BOOLEAN', required: true },
        { id: 'reason', type: 'STRING', required: false, defaults: 'none given' },
      ] as const,
    };
    const result = simulateFlow(flow([wait]), {
      events: [{ at: 5000, event: { type: 'resume-requested', inputs: { approved: 'true' } } }],
    });
    expect(result.execution.state).toBe('SUCCESS');
    const values = { approved: true, reason: 'none given' };
    expect(runsOf(result.execution, 'wait')[0]?.outputs).toEqual({ ...values, onResume: values });
  });

  it('fails with the problem when a resume input is not valid', () => {
    const wait = { ...pause('wait'), onResume: [{ id: 'approved', type: 'BOOLEAN', required: true }] as const };
    const result = simulateFlow(flow([wait]), { events: [{ at: 5000, event: { type: 'resume-requested', inputs: {} } }] });
    expect(result.execution.state).toBe('FAILED');
    expect(runsOf(result.execution, 'wait')[0]?.error).toBe('The resume inputs are not valid: inputs.approved: required');
  });
});
