import type { Flow } from '@lanner/model';
import { createExecution, next, type Execution, type ExecutionEvent } from '@lanner/state-machine';
import { parsedFlow } from '../testing/parsed-flow';
import { executorStateWrite } from './execution-records';

const NOW = Date.parse('2026-11-30T01:00:00.000Z');

/** The task runs the executor stores after the last event, by task id. */
function storedAfter(flow: Flow, events: ExecutionEvent[]): Map<string, { state: string; error: string | null }> {
  let previous: Execution = createExecution(flow, { id: 'e', tenant: 'main' }, NOW);
  let current = next(flow, previous, { type: 'created' }, NOW).execution;
  let at = NOW;
  for (const event of events) {
    previous = current;
    at = event.type === 'timer-fired' ? event.timer.at : at + 1;
    current = next(flow, current, event, at).execution;
  }
  return new Map(
    (executorStateWrite(previous, current).taskRuns ?? []).map((taskRun) => [
      taskRun.taskId,
      { state: taskRun.state, error: taskRun.error },
    ]),
  );
}

describe("a task run's own error as stored", () => {
  it("is a flowable's timeout, while what it killed has none", () => {
    const flow = parsedFlow(`
id: bounded
namespace: company.team
tasks:
  - id: steps
    type: io.kestra.plugin.core.flow.Sequential
    timeout: PT30S
    tasks:
      - id: work
        type: io.kestra.plugin.core.debug.Return
        format: done
`);
    const stored = storedAfter(flow, [
      { type: 'task-run-started', taskRunId: 'e:steps:work', attempt: 1, workerId: 'w1', workerQueueId: 'default' },
      {
        type: 'timer-fired',
        timer: { id: 'e:steps|task-timeout|1', kind: 'task-timeout', at: NOW + 30_000, taskRunId: 'e:steps', attempt: 1 },
      },
    ]);
    expect(stored.get('steps')).toEqual({ state: 'FAILED', error: 'Timed out after PT30S' });
    expect(stored.get('work')).toEqual({ state: 'KILLED', error: null });
  });

  it("is a Fail task's message, and nothing for a task that succeeded", () => {
    // Fail runs on a worker (Kestra's is a runnable task): these are its worker's answers.
    const answered = (state: 'SUCCESS' | 'FAILED', error?: string): ExecutionEvent[] => [
      { type: 'task-run-started', taskRunId: 'e:check', attempt: 1, workerId: 'w1', workerQueueId: 'default' },
      { type: 'task-run-result', taskRunId: 'e:check', attempt: 1, state, ...(error !== undefined ? { error } : {}) },
    ];
    const flow = parsedFlow(`
id: guarded
namespace: company.team
tasks:
  - id: check
    type: io.kestra.plugin.core.execution.Fail
    errorMessage: "the input file is empty"
`);
    expect(storedAfter(flow, answered('FAILED', 'the input file is empty')).get('check')).toEqual({
      state: 'FAILED',
      error: 'the input file is empty',
    });
    const passing = parsedFlow(`
id: guarded
namespace: company.team
tasks:
  - id: check
    type: io.kestra.plugin.core.execution.Fail
    condition: "{{ false }}"
    errorMessage: "never shown"
`);
    expect(storedAfter(passing, answered('SUCCESS')).get('check')).toEqual({ state: 'SUCCESS', error: null });
  });
});
