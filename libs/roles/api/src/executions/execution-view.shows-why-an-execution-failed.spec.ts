import type { ExecutionRecord } from '@lanner/model';
import { executionView } from './execution-view';

const at = new Date(Date.UTC(2026, 11, 1, 22, 0, 0));

const failed: ExecutionRecord = {
  id: 'e-1',
  tenantId: 'main',
  namespace: 'company.team',
  flowId: 'hello',
  flowRevision: 1,
  state: 'FAILED',
  stateHistories: [
    { state: 'CREATED', date: at },
    { state: 'FAILED', date: at },
  ],
  inputs: null,
  outputs: null,
  labels: {},
  trigger: null,
  version: 1,
  parentExecutionId: null,
  parentTaskRunId: null,
  createdAt: at,
  updatedAt: at,
  startedAt: null,
  endedAt: at,
};

describe('an execution view', () => {
  it("carries the execution's own error, shaped as a task run's", () => {
    const reason = 'quarantined: the executor stopped twice while processing this execution after a restart';
    expect(executionView({ ...failed, error: reason }).error).toEqual({ message: reason });
  });

  it('links a CREATE_NEW_EXECUTION retry to the first execution of its chain (Kestra originalId)', () => {
    const retry = {
      ...failed,
      id: 'e-1-retry3',
      trigger: { type: 'retry', originalExecutionId: 'e-1', retriedExecutionId: 'e-1-retry2', retryAttempt: 3 },
    };
    expect(executionView(retry).originalId).toBe('e-1');
    expect(executionView(failed).originalId).toBe('e-1');
    expect(executionView({ ...failed, trigger: { type: 'schedule' } }).originalId).toBe('e-1');
  });

  it('says null when the execution gave no reason (or ended well)', () => {
    expect(executionView(failed).error).toBeNull();
    expect(executionView({ ...failed, state: 'SUCCESS', error: null }).error).toBeNull();
  });
});
