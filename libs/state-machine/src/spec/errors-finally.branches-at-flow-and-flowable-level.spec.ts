import { listTaskRuns, simulateFlow } from '../index';
import { flow, log, sequential, statesByTask } from '../test-support/flows';

const FAIL = { state: 'FAILED' as const };

describe('errors and finally', () => {
  it('runs the flow errors branch after a failure, then finally; the execution stays FAILED', () => {
    const result = simulateFlow(flow([log('a'), log('b')], { errors: [log('alert')], finally: [log('cleanup')] }), {
      script: { a: FAIL },
    });
    expect(result.execution.state).toBe('FAILED');
    expect(listTaskRuns(result.execution).map((run) => `${run.taskId}:${run.stage}:${run.state}`)).toEqual([
      'a:main:FAILED',
      'alert:errors:SUCCESS',
      'cleanup:finally:SUCCESS',
    ]);
  });

  it('does not run errors on success but always runs finally', () => {
    const result = simulateFlow(flow([log('a')], { errors: [log('alert')], finally: [log('cleanup')] }));
    expect(result.execution.state).toBe('SUCCESS');
    expect(statesByTask(result.execution)).toEqual({ a: 'SUCCESS', cleanup: 'SUCCESS' });
  });

  it('fails the execution when finally fails', () => {
    const result = simulateFlow(flow([log('a')], { finally: [log('cleanup')] }), { script: { cleanup: FAIL } });
    expect(result.execution.state).toBe('FAILED');
  });

  it('runs a flowable errors branch inside the flowable; the flowable and execution fail', () => {
    const result = simulateFlow(
      flow(
        [
          sequential('group', [log('a'), log('b')], { errors: [log('local-alert')], finally: [log('local-cleanup')] }),
          log('after'),
        ],
        {
          errors: [log('global-alert')],
        },
      ),
      { script: { a: FAIL } },
    );
    expect(result.execution.state).toBe('FAILED');
    expect(listTaskRuns(result.execution).map((run) => `${run.taskId}:${run.state}`)).toEqual([
      'group:FAILED',
      'a:FAILED',
      'local-alert:SUCCESS',
      'local-cleanup:SUCCESS',
      'global-alert:SUCCESS',
    ]);
  });

  it('continues after a flowable whose failure is allowed', () => {
    const result = simulateFlow(
      flow([sequential('group', [log('a')], { allowFailure: true, errors: [log('local-alert')] }), log('after')]),
      {
        script: { a: FAIL },
      },
    );
    expect(result.execution.state).toBe('WARNING');
    expect(statesByTask(result.execution)).toEqual({ group: 'WARNING', a: 'FAILED', 'local-alert': 'SUCCESS', after: 'SUCCESS' });
  });
});
