import { createExecution, next, type Execution, type ExecutionAction, type ExecutionEvent } from '../index';
import { constantRetry, flow, log } from '../test-support/flows';

// WORKERS.md (Kestra #7730): a job sent again (retry, restart, worker lost) goes
// back to the worker queue it was routed to; the executor does not route it afresh.
describe('a re-dispatched job keeps its worker queue', () => {
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

  const queuedOnGpu: ExecutionEvent = { type: 'task-run-queued', taskRunId: 'e:train', attempt: 1, workerQueueId: 'gpu-a100' };
  const startedOnGpu: ExecutionEvent = {
    type: 'task-run-started',
    taskRunId: 'e:train',
    attempt: 1,
    workerId: 'w1',
    workerQueueId: 'gpu-a100',
  };
  const failed: ExecutionEvent = {
    type: 'task-run-result',
    taskRunId: 'e:train',
    attempt: 1,
    state: 'FAILED',
    error: 'out of memory',
  };

  it('after a retry timer', () => {
    const tree = flow([log('train', { workerSelector: selector, retry: constantRetry(1000, 3) })]);
    const retryTimer = { id: 'e:train|retry|1', kind: 'retry' as const, at: 5000, taskRunId: 'e:train', attempt: 1 };
    const { dispatches } = drive(tree, [queuedOnGpu, startedOnGpu, failed, { type: 'timer-fired', timer: retryTimer }]);
    expect(dispatches).toEqual([
      expect.objectContaining({ attempt: 1, selector }),
      expect.objectContaining({ attempt: 2, selector, workerQueueId: 'gpu-a100' }),
    ]);
    expect(dispatches[0]).not.toHaveProperty('workerQueueId');
  });

  it('after a restart of the failed execution', () => {
    const tree = flow([log('train', { workerSelector: selector })]);
    const { execution, dispatches } = drive(tree, [queuedOnGpu, startedOnGpu, failed, { type: 'restart-requested' }]);
    expect(execution.state).toBe('RUNNING');
    expect(dispatches[1]).toEqual(expect.objectContaining({ attempt: 2, workerQueueId: 'gpu-a100' }));
  });

  it('after its worker was lost', () => {
    const tree = flow([log('train', { workerSelector: selector })]);
    const { dispatches } = drive(tree, [queuedOnGpu, startedOnGpu, { type: 'worker-lost', taskRunId: 'e:train', attempt: 1 }]);
    expect(dispatches[1]).toEqual(expect.objectContaining({ attempt: 2, workerQueueId: 'gpu-a100' }));
  });

  it('a task run refused before it reached a queue is routed afresh on restart', () => {
    const tree = flow([log('train', { workerSelector: selector })]);
    const refused: ExecutionEvent = {
      type: 'task-run-dispatch-refused',
      taskRunId: 'e:train',
      attempt: 1,
      state: 'FAILED',
      reason: 'no worker queue matches',
    };
    const { dispatches } = drive(tree, [refused, { type: 'restart-requested' }]);
    expect(dispatches).toHaveLength(2);
    expect(dispatches[1]).not.toHaveProperty('workerQueueId');
  });
});
