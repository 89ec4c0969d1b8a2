import { replayExecution, replayProblem, ReplayRefused, simulateFlow } from '../index';
import type { Execution } from '../index';
import {
  dag,
  flow,
  historyOf,
  log,
  outputValues,
  parallel,
  runsOf,
  sequential,
  statesByTask,
  waitFor,
} from '../test-support/flows';

const FAIL = { state: 'FAILED' as const, error: 'disk full' };
const OK = { state: 'SUCCESS' as const };

function idOf(execution: Execution, taskId: string): string {
  const [run] = runsOf(execution, taskId);
  if (run === undefined) throw new Error(`no task run of ${taskId}`);
  return run.id;
}

describe('replay from a task run', () => {
  it('carries over the task runs before the failed one, outputs included, and runs again from it', () => {
    const tree = flow([outputValues('a', { greeting: 'hi' }), log('b'), log('c')], { errors: [log('alert')] });
    const original = simulateFlow(tree, { script: { b: FAIL } }).execution;
    expect(original.state).toBe('FAILED');
    expect(statesByTask(original)).toMatchObject({ a: 'SUCCESS', b: 'FAILED', alert: 'SUCCESS' });

    const replay = replayExecution(tree, original, { id: 'again', taskRunId: idOf(original, 'b'), now: 10_000 });
    expect(replay.state).toBe('CREATED');
    expect(replay.replayOf).toEqual({ executionId: 'exec', taskRunId: 'again:b' });
    // a is carried over as it ended; b waits to run again; the errors branch is gone.
    expect(runsOf(replay, 'a')[0]).toMatchObject({ id: 'again:a', executionId: 'again', state: 'SUCCESS' });
    expect(runsOf(replay, 'b')[0]?.state).toBe('RESTARTED');
    expect(runsOf(replay, 'alert')).toEqual([]);

    const ended = simulateFlow(tree, { start: replay, now: 10_000, script: { b: OK } }).execution;
    expect(ended.state).toBe('SUCCESS');
    expect(statesByTask(ended)).toEqual({ a: 'SUCCESS', b: 'SUCCESS', c: 'SUCCESS' });
    // a did not run again (one attempt, the original's); b ran a new attempt after its first one failed.
    expect(runsOf(ended, 'a')[0]?.attempts).toHaveLength(1);
    expect(runsOf(ended, 'a')[0]?.outputs).toEqual({ values: { greeting: 'hi' } });
    expect(runsOf(ended, 'b')[0]?.attempts.map((attempt) => attempt.state)).toEqual(['FAILED', 'SUCCESS']);
    expect(historyOf(runsOf(ended, 'b')[0])).toBe('CREATED>SUBMITTED>RUNNING>FAILED>RESTARTED>SUBMITTED>RUNNING>SUCCESS');
    // The original is untouched.
    expect(original.state).toBe('FAILED');
  });

  it('runs again from a task that succeeded: it and what followed it in its lane run again, inside its containers', () => {
    const tree = flow([log('a'), sequential('group', [log('b'), log('c')]), log('d')]);
    const original = simulateFlow(tree).execution;
    expect(original.state).toBe('SUCCESS');
    const replay = replayExecution(tree, original, { id: 'again', taskRunId: idOf(original, 'b'), now: 10_000 });
    expect(statesByTask(replay)).toEqual({ a: 'SUCCESS', group: 'RESTARTED', b: 'RESTARTED' });

    const ended = simulateFlow(tree, { start: replay, now: 10_000 }).execution;
    expect(ended.state).toBe('SUCCESS');
    expect(statesByTask(ended)).toEqual({ a: 'SUCCESS', group: 'SUCCESS', b: 'SUCCESS', c: 'SUCCESS', d: 'SUCCESS' });
    expect(runsOf(ended, 'a')[0]?.attempts).toHaveLength(1);
    expect(runsOf(ended, 'b')[0]?.attempts).toHaveLength(2);
    expect(runsOf(ended, 'c')[0]?.attempts).toHaveLength(1);
    expect(runsOf(ended, 'c')[0]?.histories[0]?.at).toBeGreaterThanOrEqual(10_000);
  });

  it('reruns a chosen flowable from its start', () => {
    const tree = flow([log('a'), sequential('group', [log('b'), log('c')])]);
    const original = simulateFlow(tree, { script: { c: FAIL } }).execution;
    const replay = replayExecution(tree, original, { id: 'again', taskRunId: idOf(original, 'group'), now: 10_000 });
    expect(statesByTask(replay)).toEqual({ a: 'SUCCESS', group: 'RESTARTED' });
    const ended = simulateFlow(tree, { start: replay, now: 10_000 }).execution;
    expect(ended.state).toBe('SUCCESS');
    expect(runsOf(ended, 'b')[0]?.attempts).toHaveLength(1);
    expect(runsOf(ended, 'b')[0]?.histories[0]?.at).toBeGreaterThanOrEqual(10_000);
  });

  it('leaves a failed lane of a Parallel off the path as it ended', () => {
    const tree = flow([parallel('both', [log('left'), log('right')])]);
    const original = simulateFlow(tree, { script: { left: FAIL, right: FAIL } }).execution;
    const replay = replayExecution(tree, original, { id: 'again', taskRunId: idOf(original, 'right'), now: 10_000 });
    const ended = simulateFlow(tree, { start: replay, now: 10_000, script: { right: OK } }).execution;
    expect(statesByTask(ended)).toEqual({ both: 'FAILED', left: 'FAILED', right: 'SUCCESS' });
    expect(ended.state).toBe('FAILED');
  });

  it('runs again what depends on the chosen task in a Dag, and keeps what does not', () => {
    const tree = flow([
      dag('graph', [
        { task: log('first'), dependsOn: [] },
        { task: log('other'), dependsOn: [] },
        { task: log('then'), dependsOn: ['first'] },
      ]),
    ]);
    const original = simulateFlow(tree).execution;
    const replay = replayExecution(tree, original, { id: 'again', taskRunId: idOf(original, 'first'), now: 10_000 });
    expect(statesByTask(replay)).toEqual({ graph: 'RESTARTED', first: 'RESTARTED', other: 'SUCCESS' });
    const ended = simulateFlow(tree, { start: replay, now: 10_000 }).execution;
    expect(ended.state).toBe('SUCCESS');
    expect(runsOf(ended, 'other')[0]?.attempts).toHaveLength(1);
    expect(runsOf(ended, 'then')[0]?.histories[0]?.at).toBeGreaterThanOrEqual(10_000);
  });

  it('without a task run, runs the whole flow again with the same inputs', () => {
    const tree = flow([log('a')]);
    const original = simulateFlow(tree, { inputs: { name: 'x' } }).execution;
    const replay = replayExecution(tree, original, { id: 'again', now: 10_000 });
    expect(replay.taskRuns.size).toBe(0);
    expect(replay.inputs).toEqual({ name: 'x' });
    expect(simulateFlow(tree, { start: replay, now: 10_000 }).execution.state).toBe('SUCCESS');
  });

  it('refuses a running execution, an unknown task run, an errors-branch task run and one inside a WaitFor, saying why', () => {
    const tree = flow([log('a')], { errors: [log('alert')] });
    const running = simulateFlow(tree, { script: { a: { state: 'HANG' } } }).execution;
    expect(replayProblem(tree, running)).toMatch(/RUNNING; only an ended execution replays/);
    const failed = simulateFlow(tree, { script: { a: FAIL } }).execution;
    expect(replayProblem(tree, failed, 'exec:nope')).toBe("Execution 'exec' has no task run 'exec:nope'");
    expect(replayProblem(tree, failed, idOf(failed, 'alert'))).toMatch(/errors branch/);
    expect(() => replayExecution(tree, failed, { id: 'x', taskRunId: 'exec:nope', now: 1 })).toThrow(ReplayRefused);

    const loop = flow([waitFor('wait', '{{ true }}', [log('inside')], { intervalMs: 1000, maxIterations: 1 })]);
    const looped = simulateFlow(loop).execution;
    expect(replayProblem(loop, looped, idOf(looped, 'inside'))).toMatch(/loop of WaitFor 'wait'/);
    expect(replayProblem(loop, looped, idOf(looped, 'wait'))).toBeUndefined();
  });
});
