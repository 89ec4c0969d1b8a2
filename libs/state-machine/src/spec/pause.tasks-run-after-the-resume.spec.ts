import type { Task } from '@lanner/model';
import { simulateFlow } from '../index';
import { flow, historyOf, log, pause, runsOf, statesByTask } from '../test-support/flows';

const resumeAt = (at: number, inputs = {}) => ({ at, event: { type: 'resume-requested' as const, inputs } });

/** A Pause with Kestra's deprecated `tasks` (and optionally `errors`). */
const pauseWith = (tasks: Task[], extra: { errors?: Task[]; pauseTimeoutMs?: number } = {}): Task =>
  ({
    ...pause('approve', extra.pauseTimeoutMs !== undefined ? { pauseTimeoutMs: extra.pauseTimeoutMs } : {}),
    tasks,
    ...(extra.errors ? { errors: extra.errors } : {}),
  }) as Task;

describe('Pause with tasks (Kestra deprecated)', () => {
  it('runs no child before the resume, then its tasks in order, then what follows it', () => {
    const result = simulateFlow(flow([pauseWith([log('first'), log('second')]), log('after')]), {
      events: [resumeAt(60_000, { note: 'ok' })],
    });
    expect(result.execution.state).toBe('SUCCESS');
    expect(statesByTask(result.execution)).toEqual({ approve: 'SUCCESS', first: 'SUCCESS', second: 'SUCCESS', after: 'SUCCESS' });
    const [first] = runsOf(result.execution, 'first');
    expect(first?.histories[0]?.at).toBe(60_000);
    expect(first?.parentTaskRunId).toBe(runsOf(result.execution, 'approve')[0]?.id);
    expect(historyOf(runsOf(result.execution, 'approve')[0])).toBe('CREATED>RUNNING>PAUSED>RUNNING>SUCCESS');
    expect(runsOf(result.execution, 'approve')[0]?.outputs).toEqual({ note: 'ok', onResume: { note: 'ok' } });
  });

  it('stays PAUSED with no child task run while not resumed', () => {
    const result = simulateFlow(flow([pauseWith([log('first')])]));
    expect(result.execution.state).toBe('PAUSED');
    expect(runsOf(result.execution, 'first')).toHaveLength(0);
  });

  it('fails when one of its tasks fails, running its errors branch', () => {
    const result = simulateFlow(flow([pauseWith([log('first'), log('second')], { errors: [log('cleanup')] })]), {
      events: [resumeAt(1000)],
      script: { first: { state: 'FAILED', error: 'boom' } },
    });
    expect(result.execution.state).toBe('FAILED');
    expect(statesByTask(result.execution)).toEqual({ approve: 'FAILED', first: 'FAILED', cleanup: 'SUCCESS' });
  });

  it('fails on its timeout without running its tasks', () => {
    const result = simulateFlow(flow([pauseWith([log('first')], { pauseTimeoutMs: 5000 })]));
    expect(result.execution.state).toBe('FAILED');
    expect(runsOf(result.execution, 'first')).toHaveLength(0);
    expect(runsOf(result.execution, 'approve')[0]?.error).toBe('The pause timed out after PT5S');
  });

  it('kills a paused one, and a restart pauses it again', () => {
    const killed = simulateFlow(flow([pauseWith([log('first')])]), {
      events: [{ at: 1000, event: { type: 'kill-requested' } }],
    });
    expect(killed.execution.state).toBe('KILLED');
    const restarted = simulateFlow(flow([pauseWith([log('first')])]), {
      events: [
        { at: 1000, event: { type: 'kill-requested' } },
        { at: 2000, event: { type: 'restart-requested' } },
        resumeAt(3000),
      ],
    });
    expect(restarted.execution.state).toBe('SUCCESS');
    expect(runsOf(restarted.execution, 'first')[0]?.histories[0]?.at).toBe(3000);
  });
});
