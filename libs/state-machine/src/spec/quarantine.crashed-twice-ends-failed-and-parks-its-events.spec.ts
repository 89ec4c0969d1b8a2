import {
  createExecution,
  liftQuarantine,
  next,
  parksEvent,
  QUARANTINE_AFTER_CRASHES,
  quarantineExecution,
  reviewMarksAtStart,
  simulateFlow,
  type ProcessingMark,
} from '../index';
import { flow, historyOf, ifTask, log, parallel, pause, runsOf, statesByTask, subflow } from '../test-support/flows';

const T0 = Date.parse('2026-12-01T22:00:00.000Z');
const created = { messageId: 'e1:created', messageType: 'execution.created', since: T0 };

function mark(extra: Partial<ProcessingMark> = {}): ProcessingMark {
  return { tenantId: 'main', executionId: 'e1', crashes: 0, ...extra };
}

describe('crash marks reviewed at start', () => {
  it('counts a mark still in progress as a crash, and quarantines nothing below the threshold', () => {
    const review = reviewMarksAtStart([mark({ inProgress: created })], T0 + 5000);
    expect(review.changed).toEqual([{ tenantId: 'main', executionId: 'e1', crashes: 1, lastCrash: created }]);
    expect(review.quarantine).toEqual([]);
  });

  it(`quarantines an execution whose processing stopped the process ${QUARANTINE_AFTER_CRASHES} times, saying when and while doing what`, () => {
    const review = reviewMarksAtStart(
      [mark({ crashes: 1, lastCrash: created, inProgress: { ...created, since: T0 + 60_000 } })],
      T0 + 90_000,
    );
    expect(review.changed).toEqual([
      {
        tenantId: 'main',
        executionId: 'e1',
        crashes: 2,
        lastCrash: { ...created, since: T0 + 60_000 },
        quarantinedAt: T0 + 90_000,
      },
    ]);
    expect(review.quarantine).toEqual([
      {
        tenantId: 'main',
        executionId: 'e1',
        reason:
          "quarantined: the executor stopped twice while processing this execution after a restart (last at 2026-12-01T22:01:00.000Z, handling 'execution.created'); its pending events are parked and not processed again",
      },
    ]);
  });

  it('leaves finished marks as they are and quarantines again what was quarantined (its end may not be stored yet)', () => {
    const finished = mark({ executionId: 'e2', crashes: 1, lastCrash: created });
    const quarantined = mark({ executionId: 'e3', crashes: 2, lastCrash: created, quarantinedAt: T0 });
    const review = reviewMarksAtStart([finished, quarantined], T0 + 1000);
    expect(review.changed).toEqual([]);
    expect(review.quarantine.map((order) => order.executionId)).toEqual(['e3']);
  });

  it('takes the threshold as an argument', () => {
    expect(reviewMarksAtStart([mark({ inProgress: created })], T0, 1).quarantine.map((order) => order.executionId)).toEqual([
      'e1',
    ]);
  });
});

describe('events of a quarantined execution', () => {
  it('are parked, all but a restart, which lifts the quarantine and keeps the crashes counted', () => {
    const quarantined = mark({ crashes: 2, lastCrash: created, quarantinedAt: T0 });
    for (const type of ['execution.created', 'worker.result', 'timer.fired', 'execution.kill', 'task-run.worker-lost']) {
      expect(parksEvent(quarantined, type)).toBe(true);
    }
    expect(parksEvent(quarantined, 'execution.restart')).toBe(false);
    expect(parksEvent(mark({ crashes: 1 }), 'execution.created')).toBe(false);
    expect(parksEvent(undefined, 'execution.created')).toBe(false);

    const lifted = liftQuarantine(quarantined);
    expect(lifted).toEqual({ tenantId: 'main', executionId: 'e1', crashes: 2, lastCrash: created });
    // Lifted, it stays lifted at the next start when nothing stopped the process again.
    expect(reviewMarksAtStart([lifted], T0)).toEqual({ changed: [], quarantine: [] });
    // Once more stopped while processing it after the restart: quarantined again at once.
    expect(reviewMarksAtStart([{ ...lifted, inProgress: created }], T0).quarantine).toHaveLength(1);
  });
});

describe('quarantineExecution', () => {
  const reason = 'quarantined: the executor stopped twice while processing this execution after a restart';

  it('fails every live task run and the execution with the reason, kills the running jobs, and evaluates no errors branch', () => {
    const tree = flow([parallel('fan', [log('a'), log('b')]), log('after')], { errors: [log('on-error')] });
    const running = simulateFlow(tree, { script: { a: { state: 'HANG' }, b: { state: 'HANG' } } }).execution;
    const { execution, actions } = quarantineExecution(running, reason, 9_000);

    expect(execution.state).toBe('FAILED');
    expect(execution.error).toBe(reason);
    expect(execution.version).toBe(running.version + 1);
    expect(execution.histories.map((change) => change.state)).toEqual(['CREATED', 'RUNNING', 'FAILED']);
    expect(statesByTask(execution)).toEqual({ fan: 'FAILED', a: 'FAILED', b: 'FAILED' });
    expect(runsOf(execution, 'a')[0]?.error).toBe(reason);
    expect(runsOf(execution, 'a')[0]?.attempts.map((attempt) => [attempt.state, attempt.error])).toEqual([['FAILED', reason]]);
    expect(historyOf(runsOf(execution, 'fan')[0])).toBe('CREATED>RUNNING>FAILED');
    expect(execution.liveTaskRuns.size).toBe(0);
    const killed = actions.flatMap((action) => (action.type === 'kill-job' ? [action.taskRunId] : [])).sort();
    expect(killed).toEqual([runsOf(running, 'a')[0]?.id, runsOf(running, 'b')[0]?.id].sort());
    expect(actions[actions.length - 1]).toEqual({ type: 'end', state: 'FAILED' });
    expect(runsOf(execution, 'on-error')).toEqual([]);
  });

  it('fails an execution whose start never got stored (the created event stopped the process)', () => {
    const tree = flow([ifTask('check', "{{ 'x' == 'x' }}", [log('then')])]);
    const fresh = createExecution(tree, { id: 'e1', tenant: 'main', inputs: {} }, T0);
    const { execution, actions } = quarantineExecution(fresh, reason, T0 + 1);
    expect(execution.state).toBe('FAILED');
    expect(execution.histories.map((change) => change.state)).toEqual(['CREATED', 'FAILED']);
    expect(actions).toEqual([{ type: 'end', state: 'FAILED' }]);
  });

  it('kills the child of a running subflow and fails a paused task', () => {
    const tree = flow([parallel('both', [subflow('child', 'other', { wait: true }), pause('approval')])]);
    // Stopped while the child still runs: its parent's task run is RUNNING.
    const running = simulateFlow(tree, {
      maxSteps: 1,
      subflows: { 'company.team.other': { state: 'SUCCESS', durationMs: 3_600_000 } },
    }).execution;
    const { execution, actions } = quarantineExecution(running, reason, 50_000);
    expect(statesByTask(execution)).toEqual({ both: 'FAILED', child: 'FAILED', approval: 'FAILED' });
    const child = runsOf(running, 'child')[0]?.subflowExecutionId;
    expect(child).toBeDefined();
    expect(actions).toContainEqual({ type: 'kill-subflow', executionId: child });
  });

  it('leaves an ended execution as it is, and later events of the quarantined execution change nothing', () => {
    const tree = flow([log('a')]);
    const running = simulateFlow(tree, { script: { a: { state: 'HANG' } } }).execution;
    const { execution } = quarantineExecution(running, reason, 1000);
    expect(quarantineExecution(execution, reason, 2000)).toEqual({ execution, actions: [] });
    const late = next(
      tree,
      execution,
      { type: 'task-run-result', taskRunId: runsOf(execution, 'a')[0]?.id ?? '', attempt: 1, state: 'SUCCESS' },
      3000,
    );
    expect(late.execution).toBe(execution);
  });
});
