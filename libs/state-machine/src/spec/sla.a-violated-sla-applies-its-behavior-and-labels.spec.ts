import type { FlowSla } from '@lanner/model';
import { simulateFlow } from '../index';
import { flow, log, outputValues, runsOf } from '../test-support/flows';

// Kestra's flow `sla` (ExecutorService.processViolation): FAIL and CANCEL end the
// execution FAILED / CANCELLED, NONE changes nothing; the SLA's labels are added
// in every case. MAX_DURATION runs from the execution's start;
// EXECUTION_ASSERTION is checked on every change of a running execution.
const maxDuration = (behavior: FlowSla['behavior'], durationMs = 10_000): FlowSla => ({
  id: 'quick',
  type: 'MAX_DURATION',
  durationMs,
  behavior,
  labels: { sla: 'missed' },
});

describe('a violated SLA', () => {
  it('MAX_DURATION with FAIL kills what runs and fails the execution, naming the SLA', () => {
    const result = simulateFlow({ ...flow([log('slow')]), sla: [maxDuration('FAIL')] }, { script: { slow: { state: 'HANG' } } });
    expect(result.execution.state).toBe('FAILED');
    expect(result.execution.error).toBe("SLA 'quick' violated: the execution ran longer than PT10S");
    expect(result.execution.labels).toEqual({ sla: 'missed' });
    expect(runsOf(result.execution, 'slow')[0]?.state).toBe('KILLED');
    expect(result.now).toBe(10_000);
  });

  it('MAX_DURATION with CANCEL ends it CANCELLED', () => {
    const result = simulateFlow(
      { ...flow([log('slow')]), sla: [maxDuration('CANCEL')] },
      { script: { slow: { state: 'HANG' } } },
    );
    expect(result.execution.state).toBe('CANCELLED');
  });

  it('MAX_DURATION with NONE only adds its labels', () => {
    const result = simulateFlow(
      { ...flow([log('slow')]), sla: [maxDuration('NONE', 500)] },
      { script: { slow: { durationMs: 2000, state: 'SUCCESS' } } },
    );
    expect(result.execution.state).toBe('SUCCESS');
    expect(result.execution.labels).toEqual({ sla: 'missed' });
  });

  it('MAX_DURATION not reached changes nothing', () => {
    const result = simulateFlow({ ...flow([log('quick-task')]), sla: [maxDuration('FAIL')] });
    expect(result.execution.state).toBe('SUCCESS');
    expect(result.execution.labels).toEqual({});
  });

  it('EXECUTION_ASSERTION with FAIL fails the execution as soon as its assertion renders false', () => {
    const sla: FlowSla = {
      id: 'small',
      type: 'EXECUTION_ASSERTION',
      assert: '{{ outputs.count is not defined or outputs.count.values.n != "big" }}',
      behavior: 'FAIL',
      labels: {},
    };
    const result = simulateFlow({ ...flow([outputValues('count', { n: 'big' }), log('after')]), sla: [sla] });
    expect(result.execution.state).toBe('FAILED');
    expect(result.execution.error).toMatch(/^SLA 'small' violated: assertion is false/);
    // Checked after the change that made it false: what that change started is killed.
    expect(runsOf(result.execution, 'after').map((run) => run.state)).toEqual(['KILLED']);
  });
});
