import type { StoredJson } from '@lanner/model';
import { createExecution, next } from '@lanner/state-machine';
import { parsedFlow } from '../testing/parsed-flow';
import { format1State, readBack, STORED_V1_FLOW } from '../testing/stored-state-fixtures';
import { executorStateWrite } from './execution-records';
import { loadStoredExecution, NewerStoredState, UnreadableStoredState } from './stored-state';

// A format 1 state (written before the format version existed, captured from the executor) loads and carries on.
const flow = parsedFlow(STORED_V1_FLOW);

describe('the executor loading a stored state', () => {
  it('loads a format 1 row, carries it on to SUCCESS and stores it again as format 3, every task run with it', () => {
    const loaded = loadStoredExecution('exec-1', format1State('exec-1'));
    expect(loaded.state).toBe('RUNNING');
    expect(loaded.taskRuns.get('exec-1:first')).toMatchObject({ state: 'SUBMITTED', workerQueueId: 'default' });

    let current = loaded;
    const apply = (event: Parameters<typeof next>[2]) => {
      const result = next(flow, current, event, Date.parse('2026-12-03T08:00:00Z'));
      current = result.execution;
      return result.actions;
    };
    apply({ type: 'task-run-started', taskRunId: 'exec-1:first', attempt: 1, workerId: 'w', workerQueueId: 'default' });
    const dispatched = apply({ type: 'task-run-result', taskRunId: 'exec-1:first', attempt: 1, state: 'SUCCESS' });
    expect(dispatched).toContainEqual(expect.objectContaining({ type: 'dispatch', taskRunId: 'exec-1:second' }));
    apply({ type: 'task-run-started', taskRunId: 'exec-1:second', attempt: 1, workerId: 'w', workerQueueId: 'default' });
    apply({ type: 'task-run-result', taskRunId: 'exec-1:second', attempt: 1, state: 'SUCCESS' });
    expect(current.state).toBe('SUCCESS');

    const write = executorStateWrite(loaded, current);
    expect(write.stateData).toMatchObject({ formatVersion: 3, state: 'SUCCESS' });
    expect(write.stateData).not.toHaveProperty('taskRuns');
    // The row held its task runs inside: none had a value of its own yet, so all of them are stored now.
    expect(write.taskRuns?.map((run) => run.id).sort()).toEqual(
      current.taskRuns
        .values()
        .map((run) => run.id)
        .sort(),
    );
    expect(write.taskRuns?.every((run) => run.machineData !== undefined)).toBe(true);
    expect(loadStoredExecution('exec-1', readBack(write)).state).toBe('SUCCESS');
  });

  it('refuses a state of a newer format, naming the execution and both versions', () => {
    const newer = { ...format1State('exec-2'), formatVersion: 9 };
    expect(() => loadStoredExecution('exec-2', newer)).toThrow(NewerStoredState);
    expect(() => loadStoredExecution('exec-2', newer)).toThrow(
      'execution exec-2: its stored state has format version 9, but this executor reads up to version 3; ' +
        'a newer Lanner wrote it: upgrade this process',
    );
  });

  it('refuses a state that breaks its format, naming the execution and the JSON path', () => {
    const created = createExecution(flow, { id: 'exec-3', tenant: 'main' }, 0);
    const stored = readBack(executorStateWrite(created, next(flow, created, { type: 'created' }, 1).execution)) as Record<
      string,
      StoredJson
    >;
    const broken = { ...stored, taskRuns: [{ ...(stored['taskRuns'] as Record<string, StoredJson>[])[0], seq: 'first' }] };
    expect(() => loadStoredExecution('exec-3', broken)).toThrow(UnreadableStoredState);
    expect(() => loadStoredExecution('exec-3', broken)).toThrow(
      /^execution exec-3: its stored state is unreadable: taskRuns\[0\]\.seq: /,
    );
  });
});
