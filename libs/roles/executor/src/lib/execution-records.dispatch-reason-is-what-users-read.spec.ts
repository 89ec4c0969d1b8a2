import { createExecution, next, type Execution, type ExecutionEvent } from '@lanner/state-machine';
import { parsedFlow } from '../testing/parsed-flow';
import { executorStateWrite } from './execution-records';

const NOW = Date.parse('2026-11-30T01:00:00.000Z');
const flow = parsedFlow(`
id: train
namespace: company.ml
tasks:
  - id: train
    type: io.kestra.plugin.core.debug.Return
    format: done
    workerSelector: { tags: [gpu] }
`);

function after(...events: ExecutionEvent[]): { previous: Execution; current: Execution } {
  let current = next(flow, createExecution(flow, { id: 'e', tenant: 'main' }, NOW), { type: 'created' }, NOW).execution;
  let previous = current;
  for (const event of events) {
    previous = current;
    current = next(flow, current, event, NOW + 1).execution;
  }
  return { previous, current };
}

function storedReason(events: ExecutionEvent[]): string | null | undefined {
  const { previous, current } = after(...events);
  return executorStateWrite(previous, current).taskRuns?.find((taskRun) => taskRun.id === 'e:train')?.dispatchReason;
}

describe("the task run's dispatch reason as stored", () => {
  const waiting = "no worker of the subscribed groups is connected (queue 'gpu'); the job waits on the queue (fallback WAIT)";

  it('says why a job waits on its queue, and nothing more once a worker started it', () => {
    const queued: ExecutionEvent = {
      type: 'task-run-queued',
      taskRunId: 'e:train',
      attempt: 1,
      workerQueueId: 'gpu',
      waitingReason: waiting,
    };
    expect(storedReason([queued])).toBe(waiting);
    expect(
      storedReason([
        queued,
        { type: 'task-run-started', taskRunId: 'e:train', attempt: 1, workerId: 'w1', workerQueueId: 'gpu' },
      ]),
    ).toBeNull();
  });

  it('keeps why the job went elsewhere than its selector asked (fallback IGNORE) after it started', () => {
    const ignored =
      "no worker of the subscribed groups is connected (queue 'gpu'); fallback IGNORE routes the task run to queue 'default'";
    const queued: ExecutionEvent = {
      type: 'task-run-queued',
      taskRunId: 'e:train',
      attempt: 1,
      workerQueueId: 'default',
      reason: ignored,
    };
    expect(
      storedReason([
        queued,
        { type: 'task-run-started', taskRunId: 'e:train', attempt: 1, workerId: 'w1', workerQueueId: 'default' },
      ]),
    ).toBe(ignored);
  });

  it('says why the job was refused (fallback FAIL or CANCEL, no queue matches)', () => {
    const refused = "no group subscribes to queue 'gpu'; the task run fails (fallback FAIL)";
    expect(
      storedReason([{ type: 'task-run-dispatch-refused', taskRunId: 'e:train', attempt: 1, state: 'FAILED', reason: refused }]),
    ).toBe(refused);
  });

  it('is empty for a job that went where its selector asked', () => {
    expect(storedReason([{ type: 'task-run-queued', taskRunId: 'e:train', attempt: 1, workerQueueId: 'gpu' }])).toBeNull();
  });
});
