import type { ExecutionWithTaskRuns } from '@lanner/model';
import { executionView, hasEnded } from './execution-view';

const at = (s: number) => new Date(Date.UTC(2026, 10, 30, 1, 0, s));

const execution: ExecutionWithTaskRuns = {
  id: 'e-1',
  tenantId: 'main',
  namespace: 'company.team',
  flowId: 'hello',
  flowRevision: 2,
  state: 'SUCCESS',
  stateHistories: [
    { state: 'CREATED', date: at(0) },
    { state: 'RUNNING', date: at(1) },
    { state: 'SUCCESS', date: at(5) },
  ],
  inputs: { who: 'world' },
  outputs: null,
  labels: { team: 'qa' },
  trigger: null,
  version: 4,
  parentExecutionId: null,
  parentTaskRunId: null,
  createdAt: at(0),
  updatedAt: at(5),
  startedAt: at(1),
  endedAt: at(5),
  taskRuns: [
    {
      id: 'e-1:say',
      executionId: 'e-1',
      taskId: 'say',
      parentTaskRunId: null,
      value: null,
      state: 'SUCCESS',
      stateHistories: [{ state: 'SUCCESS', date: at(5) }],
      outputs: null,
      workerQueueId: 'default',
      workerSelector: null,
      dispatchReason: null,
      error: null,
      attempts: [
        {
          attempt: 1,
          workerId: 'w-1',
          workerQueueId: 'default',
          state: 'FAILED',
          outputs: null,
          error: { message: 'boom' },
          startedAt: at(1),
          endedAt: at(2),
        },
        {
          attempt: 2,
          workerId: 'w-2',
          workerQueueId: 'default',
          state: 'SUCCESS',
          outputs: { rows: 3 },
          error: null,
          startedAt: at(3),
          endedAt: at(5),
        },
      ],
    },
    {
      id: 'e-1:steps',
      executionId: 'e-1',
      taskId: 'steps',
      parentTaskRunId: null,
      value: null,
      state: 'FAILED',
      stateHistories: [{ state: 'FAILED', date: at(4) }],
      outputs: null,
      workerQueueId: null,
      workerSelector: null,
      dispatchReason: null,
      error: 'Timed out after PT30S',
      attempts: [],
    },
  ],
};

describe('executionView', () => {
  it('shows the state with its history and dates, and outputs as an object', () => {
    expect(executionView(execution)).toMatchObject({
      id: 'e-1',
      state: {
        current: 'SUCCESS',
        startDate: at(1).toISOString(),
        endDate: at(5).toISOString(),
        histories: [{ state: 'CREATED', date: at(0).toISOString() }, {}, {}],
      },
      ended: true,
      outputs: {},
      labels: { team: 'qa' },
    });
  });

  it('lists every attempt of a task run with its worker, queue, outputs and error', () => {
    const [taskRun] = executionView(execution).taskRunList;
    expect(taskRun).toMatchObject({
      id: 'e-1:say',
      taskId: 'say',
      parentTaskRunId: null,
      value: null,
      state: { current: 'SUCCESS' },
    });
    expect(taskRun.attempts).toEqual([
      {
        attempt: 1,
        state: { current: 'FAILED', startDate: at(1).toISOString(), endDate: at(2).toISOString() },
        workerId: 'w-1',
        workerQueueId: 'default',
        outputs: {},
        error: { message: 'boom' },
      },
      {
        attempt: 2,
        state: { current: 'SUCCESS', startDate: at(3).toISOString(), endDate: at(5).toISOString() },
        workerId: 'w-2',
        workerQueueId: 'default',
        outputs: { rows: 3 },
        error: null,
      },
    ]);
  });

  it("shows why a task run failed as its error, as an attempt's error reads", () => {
    const [say, steps] = executionView(execution).taskRunList;
    expect(say.error).toBeNull();
    expect(steps).toMatchObject({
      taskId: 'steps',
      state: { current: 'FAILED' },
      error: { message: 'Timed out after PT30S' },
      attempts: [],
    });
  });

  it('has no task run list for a search result, and calls PAUSED or RUNNING not ended', () => {
    const { taskRuns: _taskRuns, ...record } = execution;
    expect(executionView(record)).not.toHaveProperty('taskRunList');
    expect(hasEnded({ state: 'PAUSED' })).toBe(false);
    expect(hasEnded({ state: 'KILLED' })).toBe(true);
  });
});
