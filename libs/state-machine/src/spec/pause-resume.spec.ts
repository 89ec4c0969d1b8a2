import { next, simulateFlow } from '../index';
import { flow, historyOf, log, pause, runsOf } from '../test-support/flows';

describe('Pause', () => {
  it('pauses the execution until a resume, with the resume inputs as outputs', () => {
    const result = simulateFlow(flow([log('a'), pause('approval'), log('b')]), {
      events: [{ at: 50_000, event: { type: 'resume-requested', inputs: { approved: true } } }],
    });
    expect(result.execution.state).toBe('SUCCESS');
    expect(result.execution.histories.map((change) => change.state)).toEqual([
      'CREATED',
      'RUNNING',
      'PAUSED',
      'RUNNING',
      'SUCCESS',
    ]);
    const [approval] = runsOf(result.execution, 'approval');
    expect(historyOf(approval)).toBe('CREATED>RUNNING>PAUSED>RUNNING>SUCCESS');
    expect(approval?.outputs).toEqual({ approved: true, onResume: { approved: true } });
    expect(runsOf(result.execution, 'b')[0]?.histories[0]?.at).toBe(50_000);
  });

  it('resumes by itself after pauseDuration', () => {
    const result = simulateFlow(flow([pause('wait', { pauseDurationMs: 20_000 }), log('b')]));
    expect(result.execution.state).toBe('SUCCESS');
    expect(runsOf(result.execution, 'b')[0]?.histories[0]?.at).toBe(20_000);
  });

  it('fails the pause when no resume comes within its timeout', () => {
    const result = simulateFlow(flow([pause('approval', { pauseTimeoutMs: 3_600_000 }), log('b')]));
    expect(result.execution.state).toBe('FAILED');
    const [approval] = runsOf(result.execution, 'approval');
    expect(historyOf(approval)).toBe('CREATED>RUNNING>PAUSED>FAILED');
    expect(approval?.error).toBe('The pause timed out after PT3600S');
  });

  it('ignores a second resume', () => {
    const tree = flow([pause('approval'), log('b')]);
    const paused = simulateFlow(tree).execution;
    expect(paused.state).toBe('PAUSED');
    const resumed = next(tree, paused, { type: 'resume-requested' }, 10);
    const again = next(tree, resumed.execution, { type: 'resume-requested' }, 11);
    expect(again.execution).toBe(resumed.execution);
    expect(again.actions).toEqual([]);
  });
});
