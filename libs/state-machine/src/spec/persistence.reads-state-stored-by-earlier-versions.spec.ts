// The executor stores an execution as `executionToData` (executions.state_data)
// and reads it back with `executionFromData`, possibly after an upgrade. The
// fixture is an execution stopped midway, as the code before the per-kind
// split of the flowables stored it: a Dag with tasks done, running and
// waiting, a ForEach with lanes in flight, a WaitFor between iterations, a
// Switch and an If on their branch, a Sequential in its errors branch, a Pause
// and a Subflow waiting. Loaded, it must carry on to the same end.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Flow } from '@lanner/model';
import {
  type Execution,
  type ExecutionData,
  type ExecutionEvent,
  type TaskRun,
  createExecution,
  executionFromData,
  executionToData,
  listTaskRuns,
  next,
  timerId,
} from '../index';
import {
  dag,
  failTask,
  flow,
  forEach,
  ifTask,
  log,
  parallel,
  pause,
  sequential,
  subflow,
  switchTask,
  waitFor,
} from '../test-support/flows';

const FIXTURE = join(__dirname, 'fixtures', 'stored-before-the-flowable-split.json');

const tree: Flow = flow([
  parallel('all', [
    dag('plan', [
      { task: log('a'), dependsOn: [] },
      { task: log('b'), dependsOn: ['a'] },
      { task: log('c'), dependsOn: ['a'] },
      { task: log('d'), dependsOn: ['b', 'c'] },
    ]),
    forEach('each', ['x', 'y', 'z'], [log('say')], 2),
    waitFor('poll', 'false', [log('probe')], { intervalMs: 60_000, maxIterations: 3 }),
    switchTask('route', 'b', { a: [log('ca')], b: [log('cb')] }),
    ifTask('check', 'true', [pause('hold')]),
    sequential('guarded', [failTask('boom', 'no luck')], { allowFailure: true, errors: [log('recover')] }),
    subflow('call', 'child'),
  ]),
]);

/** Jobs of these task runs get no answer: they are in flight when the execution is stored. */
const IN_FLIGHT = new Set(['e:all:plan:b', 'e:all:each:say@1', 'e:all:guarded:recover']);

/**
 * Applies `events` and what follows from them: every dispatched job starts and
 * succeeds (unless in `inFlight`), every timer fires when `fireTimers`, every
 * waited-for subflow ends SUCCESS when `endSubflows`.
 */
function drive(
  execution: Execution,
  events: ExecutionEvent[],
  options: { inFlight?: ReadonlySet<string>; fireTimers: boolean; endSubflows: boolean },
): Execution {
  const pending = [...events];
  let now = 1_000;
  for (let event = pending.shift(); event !== undefined; event = pending.shift()) {
    const result = next(tree, execution, event, (now += 1_000));
    execution = result.execution;
    for (const action of result.actions) {
      if (action.type === 'dispatch' && !options.inFlight?.has(action.taskRunId)) {
        const job = { taskRunId: action.taskRunId, attempt: action.attempt };
        pending.push({ type: 'task-run-started', ...job, workerId: 'w1', workerQueueId: 'default' });
        // Fail runs on a worker (it ran in the executor when the fixture was stored) and fails there.
        if (action.task.kind === 'Fail') pending.push({ type: 'task-run-result', ...job, state: 'FAILED', error: 'no luck' });
        else pending.push({ type: 'task-run-result', ...job, state: 'SUCCESS' });
      } else if (action.type === 'schedule-timer' && options.fireTimers) {
        pending.push({ type: 'timer-fired', timer: action.timer });
      } else if (action.type === 'start-subflow' && action.wait && options.endSubflows) {
        pending.push({ type: 'subflow-ended', taskRunId: action.taskRunId, executionId: action.executionId, state: 'SUCCESS' });
      }
    }
  }
  return execution;
}

function midway(): Execution {
  return drive(createExecution(tree, { id: 'e', tenant: 'main' }, 0), [{ type: 'created' }], {
    inFlight: IN_FLIGHT,
    fireTimers: false,
    endSubflows: false,
  });
}

const stored = (): ExecutionData => JSON.parse(readFileSync(FIXTURE, 'utf8')) as ExecutionData;
const progressById = (data: ExecutionData): Record<string, unknown> =>
  Object.fromEntries(data.taskRuns.filter((run) => run.progress !== undefined).map((run) => [run.id, run.progress]));
const statesById = (execution: Execution): Record<string, string> =>
  Object.fromEntries(listTaskRuns(execution).map((run: TaskRun) => [run.id, run.state]));

describe('an execution stored before the per-kind split of the flowables', () => {
  it('is what the state machine still stores at that point: every flowable keeps its stored progress', () => {
    const now = JSON.parse(JSON.stringify(executionToData(midway()))) as ExecutionData;
    expect(progressById(now)).toEqual(progressById(stored()));
    expect(now.root).toEqual(stored().root);
    expect(statesById(executionFromData(now))).toEqual(statesById(executionFromData(stored())));
  });

  it('loads midway, each flowable where it was, and carries on to the end', () => {
    const loaded = executionFromData(stored());
    expect(loaded.state).toBe('PAUSED');
    expect(statesById(loaded)).toMatchObject({
      'e:all:plan:a': 'SUCCESS',
      'e:all:plan:b': 'SUBMITTED',
      'e:all:plan:c': 'SUCCESS',
      'e:all:each:say@0': 'SUCCESS',
      'e:all:each:say@1': 'SUBMITTED',
      'e:all:each:say@2': 'SUCCESS',
      'e:all:poll:probe': 'SUCCESS',
      'e:all:route:cb': 'SUCCESS',
      'e:all:check:hold': 'PAUSED',
      'e:all:guarded:boom': 'FAILED',
      'e:all:guarded:recover': 'SUBMITTED',
      'e:all:call': 'RUNNING',
    });
    expect(loaded.taskRuns.get('e:all:plan:d')).toBeUndefined();

    const subflowExecutionId = loaded.taskRuns.get('e:all:call')?.subflowExecutionId as string;
    const ended = drive(
      loaded,
      [
        { type: 'task-run-started', taskRunId: 'e:all:plan:b', attempt: 1, workerId: 'w1', workerQueueId: 'default' },
        { type: 'task-run-result', taskRunId: 'e:all:plan:b', attempt: 1, state: 'SUCCESS' },
        { type: 'task-run-result', taskRunId: 'e:all:each:say@1', attempt: 1, state: 'SUCCESS' },
        { type: 'task-run-result', taskRunId: 'e:all:guarded:recover', attempt: 1, state: 'SUCCESS' },
        {
          type: 'timer-fired',
          timer: {
            id: timerId('e:all:poll', 'waitfor-next', 0),
            kind: 'waitfor-next',
            at: 61_000,
            taskRunId: 'e:all:poll',
            attempt: 0,
          },
        },
        { type: 'resume-requested', inputs: { approved: true } },
        { type: 'subflow-ended', taskRunId: 'e:all:call', executionId: subflowExecutionId, state: 'SUCCESS' },
      ],
      { fireTimers: true, endSubflows: true },
    );

    expect(ended.state).toBe('WARNING');
    expect(statesById(ended)).toEqual({
      'e:all': 'WARNING',
      'e:all:plan': 'SUCCESS',
      'e:all:plan:a': 'SUCCESS',
      'e:all:plan:b': 'SUCCESS',
      'e:all:plan:c': 'SUCCESS',
      // Started only once b succeeded after the load: c, its other dependency, had before it was stored.
      'e:all:plan:d': 'SUCCESS',
      'e:all:each': 'SUCCESS',
      'e:all:each:say@0': 'SUCCESS',
      'e:all:each:say@1': 'SUCCESS',
      'e:all:each:say@2': 'SUCCESS',
      'e:all:poll': 'SUCCESS',
      'e:all:poll:probe': 'SUCCESS',
      'e:all:poll:probe~1': 'SUCCESS',
      'e:all:poll:probe~2': 'SUCCESS',
      'e:all:route': 'SUCCESS',
      'e:all:route:cb': 'SUCCESS',
      'e:all:check': 'SUCCESS',
      'e:all:check:hold': 'SUCCESS',
      'e:all:guarded': 'WARNING',
      'e:all:guarded:boom': 'FAILED',
      'e:all:guarded:recover': 'SUCCESS',
      'e:all:call': 'SUCCESS',
    });
    expect(ended.taskRuns.get('e:all:each:say@2')?.value).toBe('z');
    expect(ended.taskRuns.get('e:all:check:hold')?.outputs).toEqual({ approved: true, onResume: { approved: true } });
  });
});
