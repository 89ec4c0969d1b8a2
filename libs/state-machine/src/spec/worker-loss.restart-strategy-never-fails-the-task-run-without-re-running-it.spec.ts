import { createExecution, next, type Execution, type ExecutionAction, type ExecutionEvent } from '../index';
import { constantRetry, flow, log } from '../test-support/flows';

// The restart strategy of the lost worker's group (WORKERS.md): NEVER fails the
// task run and sends its job nowhere, not even as a retry; otherwise the job goes
// RESUBMITTED -> SUBMITTED on the queue and with the selector it had. A loss
// reported for an execution that already ended, or a task run being killed,
// runs nothing again.
describe('a lost worker and its group restart strategy', () => {
  const selector = { tags: ['gpu'], match: 'ALL' as const };

  function drive(
    tree: ReturnType<typeof flow>,
    events: ExecutionEvent[],
  ): { execution: Execution; dispatches: ExecutionAction[] } {
    let execution = createExecution(tree, { id: 'e', tenant: 't' }, 0);
    const dispatches: ExecutionAction[] = [];
    let now = 0;
    for (const event of [{ type: 'created' } as ExecutionEvent, ...events]) {
      now += 1000;
      const result = next(tree, execution, event, now);
      execution = result.execution;
      dispatches.push(...result.actions.filter((action) => action.type === 'dispatch'));
    }
    return { execution, dispatches };
  }

  const queued: ExecutionEvent = { type: 'task-run-queued', taskRunId: 'e:train', attempt: 1, workerQueueId: 'gpu-a100' };
  const started: ExecutionEvent = {
    type: 'task-run-started',
    taskRunId: 'e:train',
    attempt: 1,
    workerId: 'w1',
    workerQueueId: 'gpu-a100',
  };
  const run = (execution: Execution) => execution.taskRuns.get('e:train');

  it('NEVER: the task run fails with the reason, its retry is not applied, and no job is sent again', () => {
    const tree = flow([log('train', { workerSelector: selector, retry: constantRetry(1000, 3) })]);
    const { execution, dispatches } = drive(tree, [
      queued,
      started,
      { type: 'worker-lost', taskRunId: 'e:train', attempt: 1, neverRestart: true },
    ]);
    expect(dispatches).toHaveLength(1);
    expect(execution.state).toBe('FAILED');
    expect(run(execution)?.state).toBe('FAILED');
    expect(run(execution)?.attempts.map((attempt) => attempt.state)).toEqual(['FAILED']);
    expect(run(execution)?.error).toBe(
      "The worker running this task was lost and its worker group's restart strategy is NEVER: the task is not run again",
    );
  });

  it('otherwise: RESUBMITTED, then SUBMITTED again on the same queue with the same selector', () => {
    const tree = flow([log('train', { workerSelector: selector })]);
    const { execution, dispatches } = drive(tree, [queued, started, { type: 'worker-lost', taskRunId: 'e:train', attempt: 1 }]);
    expect(dispatches).toEqual([
      expect.objectContaining({ attempt: 1, selector }),
      expect.objectContaining({ attempt: 2, selector, workerQueueId: 'gpu-a100' }),
    ]);
    expect(run(execution)?.state).toBe('SUBMITTED');
    expect(run(execution)?.attempts.map((attempt) => attempt.state)).toEqual(['RESUBMITTED', 'SUBMITTED']);
  });

  it('a loss reported after the execution was killed runs nothing again', () => {
    const tree = flow([log('train', { workerSelector: selector })]);
    const { execution, dispatches } = drive(tree, [
      queued,
      started,
      { type: 'kill-requested' },
      { type: 'worker-lost', taskRunId: 'e:train', attempt: 1 },
    ]);
    expect(dispatches).toHaveLength(1);
    expect(execution.state).toBe('KILLED');
    expect(run(execution)?.state).toBe('KILLED');
  });

  it('a loss reported after the execution ended runs nothing again', () => {
    const tree = flow([log('train', { workerSelector: selector })]);
    const { execution, dispatches } = drive(tree, [
      queued,
      started,
      { type: 'task-run-result', taskRunId: 'e:train', attempt: 1, state: 'SUCCESS', outputs: {} },
      { type: 'worker-lost', taskRunId: 'e:train', attempt: 1 },
    ]);
    expect(dispatches).toHaveLength(1);
    expect(execution.state).toBe('SUCCESS');
    expect(run(execution)?.attempts.map((attempt) => attempt.state)).toEqual(['SUCCESS']);
  });
});
