import { createExecution, next, STORED_STATE_FORMAT_VERSION } from '@lanner/state-machine';
import { parsedFlow } from '../testing/parsed-flow';
import { executorStateWrite } from './execution-records';
import { readBack } from '../testing/stored-state-fixtures';
import { loadStoredExecution } from './stored-state';

const NOW = Date.parse('2026-11-30T01:00:00.000Z');

const flow = parsedFlow(`
id: two
namespace: company.team
tasks:
  - id: first
    type: io.kestra.plugin.core.debug.Return
    format: one
  - id: second
    type: io.kestra.plugin.core.debug.Return
    format: two
`);

describe('execution records', () => {
  it('writes the row, the state without its task runs, and only the task runs that changed, each with its own value', () => {
    const created = createExecution(flow, { id: 'exec-1', tenant: 'main' }, NOW);
    const started = next(flow, created, { type: 'created' }, NOW).execution;
    const first = started.taskRuns.values()[0];
    const running = next(
      flow,
      started,
      { type: 'task-run-started', taskRunId: first.id, attempt: 1, workerId: 'w-1', workerQueueId: 'default' },
      NOW + 1,
    ).execution;

    const write = executorStateWrite(started, running);

    expect(write.version).toBe(running.version);
    expect(write.state).toBe('RUNNING');
    expect(write.startedAt).toEqual(new Date(NOW));
    expect(write.endedAt).toBeNull();
    expect(write.taskRuns?.map((taskRun) => [taskRun.taskId, taskRun.state])).toEqual([['first', 'RUNNING']]);
    expect(write.taskRuns?.[0].attempts).toEqual([
      expect.objectContaining({ attempt: 1, workerId: 'w-1', workerQueueId: 'default', state: 'RUNNING' }),
    ]);
    expect(write.taskRuns?.[0].machineData).toMatchObject({ id: first.id, state: 'RUNNING', seq: first.seq });
    expect(write.stateData).not.toHaveProperty('taskRuns');
  });

  it('stores a state the executor rebuilds exactly', () => {
    const created = createExecution(flow, { id: 'exec-1', tenant: 'main', inputs: { a: 1 } }, NOW);
    const started = next(flow, created, { type: 'created' }, NOW).execution;

    const write = executorStateWrite(created, started);
    const { stateData } = write;
    const rebuilt = loadStoredExecution('exec-1', readBack(write));

    expect(stateData).toMatchObject({ formatVersion: STORED_STATE_FORMAT_VERSION });

    expect(rebuilt.state).toBe(started.state);
    expect(rebuilt.version).toBe(started.version);
    expect(rebuilt.inputs).toEqual({ a: 1 });
    expect(rebuilt.taskRuns.values().map((taskRun) => taskRun.state)).toEqual(
      started.taskRuns.values().map((taskRun) => taskRun.state),
    );
  });
});
