import { createExecution, next, simulateFlow } from '../index';
import { flow, log } from '../test-support/flows';

describe('flow concurrency limit', () => {
  const limited = (behavior: 'QUEUE' | 'CANCEL' | 'FAIL') => ({ ...flow([log('a')]), concurrency: { limit: 2, behavior } });

  it('starts at once below the limit', () => {
    expect(simulateFlow(limited('QUEUE'), { runningExecutions: 1 }).execution.state).toBe('SUCCESS');
  });

  it('QUEUE: waits in QUEUED until a slot frees, then runs', () => {
    const result = simulateFlow(limited('QUEUE'), {
      runningExecutions: 2,
      events: [{ at: 30_000, event: { type: 'concurrency-slot-freed' } }],
    });
    expect(result.execution.state).toBe('SUCCESS');
    expect(result.execution.histories.map((change) => `${change.state}@${change.at}`)).toEqual([
      'CREATED@0',
      'QUEUED@0',
      'RUNNING@30000',
      'SUCCESS@31000',
    ]);
  });

  it('QUEUE: stays QUEUED without a free slot', () => {
    const tree = limited('QUEUE');
    const queued = next(tree, createExecution(tree, { id: 'e', tenant: 't' }, 0), { type: 'created', runningExecutions: 5 }, 0);
    expect(queued.execution.state).toBe('QUEUED');
    expect(queued.actions).toEqual([]);
  });

  it('CANCEL: the new execution is CANCELLED', () => {
    const result = simulateFlow(limited('CANCEL'), { runningExecutions: 2 });
    expect(result.execution.state).toBe('CANCELLED');
    expect(result.execution.taskRuns.size).toBe(0);
  });

  it('FAIL: the new execution FAILED, saying why', () => {
    const result = simulateFlow(limited('FAIL'), { runningExecutions: 2 });
    expect(result.execution.state).toBe('FAILED');
    expect(result.execution.error).toBe("The flow's concurrency limit (2) is reached");
  });
});
