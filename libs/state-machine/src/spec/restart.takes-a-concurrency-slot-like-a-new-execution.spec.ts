import fc from 'fast-check';
import type { Flow } from '@lanner/model';
import { acceptsRestart, next, simulateFlow, type Execution } from '../index';
import { flow, historyOf, log, runsOf, statesByTask } from '../test-support/flows';

const FAIL = { state: 'FAILED' as const, error: 'disk full' };
const OK = { state: 'SUCCESS' as const };

const limited = (behavior: 'QUEUE' | 'CANCEL' | 'FAIL'): Flow => ({
  ...flow([log('a'), log('b')]),
  concurrency: { limit: 1, behavior },
});

/** The flow ran once and `b` failed: an execution ready to be restarted. */
function failedOnce(tree: Flow): Execution {
  const failed = simulateFlow(tree, { script: { b: FAIL } }).execution;
  expect(failed.state).toBe('FAILED');
  return failed;
}

const states = (execution: Execution): string[] => execution.histories.map((change) => change.state);

describe('a restart under a flow concurrency limit', () => {
  it('restarts at once while a slot is free', () => {
    const tree = limited('QUEUE');
    const result = next(tree, failedOnce(tree), { type: 'restart-requested', runningExecutions: 0 }, 60_000);
    expect(states(result.execution).slice(-3)).toEqual(['FAILED', 'RESTARTED', 'RUNNING']);
    expect(result.actions).toEqual([expect.objectContaining({ type: 'dispatch', taskRunId: 'exec:b', attempt: 2 })]);
  });

  it('QUEUE: waits in QUEUED without re-running anything, then re-runs only the failed task run once a slot frees', () => {
    const tree = limited('QUEUE');
    const result = simulateFlow(tree, {
      script: { b: [FAIL, OK] },
      events: [
        { at: 60_000, event: { type: 'restart-requested', runningExecutions: 1 } },
        { at: 90_000, event: { type: 'concurrency-slot-freed' } },
      ],
    });
    const queuedStep = result.log.find((entry) => entry.at === 60_000);
    expect(queuedStep?.state).toBe('QUEUED');
    expect(queuedStep?.actions).toEqual([]);
    expect(result.execution.state).toBe('SUCCESS');
    expect(result.execution.histories.map((change) => `${change.state}@${change.at}`)).toEqual([
      'CREATED@0',
      'RUNNING@0',
      'FAILED@2000',
      'RESTARTED@60000',
      'QUEUED@60000',
      'RUNNING@90000',
      'SUCCESS@91000',
    ]);
    // `a` is not run again; `b` gets its second attempt only after the slot freed.
    expect(runsOf(result.execution, 'a')[0]?.attempts).toHaveLength(1);
    expect(historyOf(runsOf(result.execution, 'b')[0])).toBe(
      'CREATED>SUBMITTED>RUNNING>FAILED>RESTARTED>SUBMITTED>RUNNING>SUCCESS',
    );
    expect(runsOf(result.execution, 'b')[0]?.histories.find((change) => change.state === 'RESTARTED')?.at).toBe(90_000);
  });

  it('QUEUE: keeps the failed task runs as they were and shows no error while it waits', () => {
    const tree = limited('QUEUE');
    const failed = failedOnce(tree);
    expect(failed.error).toBeUndefined();
    const queued = next(tree, failed, { type: 'restart-requested', runningExecutions: 3 }, 60_000).execution;
    expect(queued.state).toBe('QUEUED');
    expect(queued.taskRuns.get('exec:b')).toBe(failed.taskRuns.get('exec:b'));
    expect(statesByTask(queued)).toEqual({ a: 'SUCCESS', b: 'FAILED' });
  });

  it('CANCEL: the restart ends CANCELLED and re-runs nothing', () => {
    const tree = limited('CANCEL');
    const result = next(tree, failedOnce(tree), { type: 'restart-requested', runningExecutions: 1 }, 60_000);
    expect(states(result.execution).slice(-3)).toEqual(['FAILED', 'RESTARTED', 'CANCELLED']);
    expect(result.actions).toEqual([{ type: 'end', state: 'CANCELLED' }]);
    expect(statesByTask(result.execution)).toEqual({ a: 'SUCCESS', b: 'FAILED' });
  });

  it('FAIL: the restart ends FAILED saying why, and may be restarted again later', () => {
    const tree = limited('FAIL');
    const refused = next(tree, failedOnce(tree), { type: 'restart-requested', runningExecutions: 1 }, 60_000);
    expect(states(refused.execution).slice(-3)).toEqual(['FAILED', 'RESTARTED', 'FAILED']);
    expect(refused.execution.error).toBe("The flow's concurrency limit (1) is reached");
    expect(refused.actions).toEqual([{ type: 'end', state: 'FAILED' }]);

    const again = next(tree, refused.execution, { type: 'restart-requested', runningExecutions: 0 }, 90_000);
    expect(again.execution.state).toBe('RUNNING');
    expect(again.execution.error).toBeUndefined();
    expect(again.actions).toEqual([expect.objectContaining({ type: 'dispatch', taskRunId: 'exec:b', attempt: 2 })]);
  });

  it('a kill of a restart waiting in QUEUED cancels it', () => {
    const tree = limited('QUEUE');
    const queued = next(tree, failedOnce(tree), { type: 'restart-requested', runningExecutions: 1 }, 60_000).execution;
    const killed = next(tree, queued, { type: 'kill-requested' }, 61_000);
    expect(states(killed.execution).slice(-2)).toEqual(['QUEUED', 'CANCELLED']);
    expect(killed.actions).toEqual([{ type: 'end', state: 'CANCELLED' }]);
  });

  it('a second restart request while QUEUED changes nothing', () => {
    const tree = limited('QUEUE');
    const failed = failedOnce(tree);
    const queued = next(
      tree,
      failed,
      { type: 'restart-requested', expectedVersion: failed.version, runningExecutions: 1 },
      60_000,
    ).execution;
    expect(next(tree, queued, { type: 'restart-requested', runningExecutions: 0 }, 61_000).execution).toBe(queued);
    expect(
      next(tree, queued, { type: 'restart-requested', expectedVersion: failed.version, runningExecutions: 0 }, 61_000).execution,
    ).toBe(queued);
  });
});

describe('a restart and a new execution are admitted alike', () => {
  it('for any limit, behavior and count of running executions, the restart ends where the new execution does', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom('QUEUE' as const, 'CANCEL' as const, 'FAIL' as const),
        fc.integer({ min: 0, max: 6 }),
        (limit, behavior, running) => {
          const tree: Flow = { ...flow([log('a'), log('b')]), concurrency: { limit, behavior } };
          const failed = simulateFlow(tree, { script: { b: FAIL } }).execution;
          const restart = next(tree, failed, { type: 'restart-requested', runningExecutions: running }, 60_000);
          const created = next(tree, restart.execution, { type: 'created', runningExecutions: running }, 60_000);
          const fresh = simulateFlow(tree, { runningExecutions: running, maxSteps: 1 }).execution;
          expect(restart.execution.state).toBe(fresh.state);
          // A restart that does not run leaves every task run as it was.
          if (restart.execution.state !== 'RUNNING') expect(listStates(restart.execution)).toEqual(listStates(failed));
          // `created` never applies to a restarted execution.
          expect(created.execution).toBe(restart.execution);
        },
      ),
    );
  });
});

function listStates(execution: Execution): string[] {
  const states: string[] = [];
  execution.taskRuns.forEach((run) => states.push(`${run.id}:${run.state}:${run.attempts.length}`));
  return states.sort();
}

describe('acceptsRestart', () => {
  it('accepts an ended FAILED, KILLED or WARNING execution at the version the requester saw', () => {
    expect(acceptsRestart({ state: 'FAILED', version: 4 })).toBe(true);
    expect(acceptsRestart({ state: 'KILLED', version: 4 }, 4)).toBe(true);
    expect(acceptsRestart({ state: 'WARNING', version: 4 }, 4)).toBe(true);
  });

  it('refuses a late duplicate and an execution that is not restartable', () => {
    expect(acceptsRestart({ state: 'FAILED', version: 5 }, 4)).toBe(false);
    for (const state of ['CREATED', 'QUEUED', 'RUNNING', 'SUCCESS', 'CANCELLED', 'RETRIED'] as const) {
      expect(acceptsRestart({ state, version: 4 })).toBe(false);
    }
  });
});
