import { MAX_FRAME_BYTES } from '@lanner/frames';
import type { RunnableTask } from '@lanner/model';
import { createExecution, next } from '@lanner/state-machine';
import { parsedFlow } from '../testing/parsed-flow';
import { encodeWorkerJob, JobTooLarge, renderTaskForWorker } from './worker-job';

const NOW = Date.parse('2026-11-30T01:00:00.000Z');

function logFlow(message: string) {
  return parsedFlow(`
id: hello
namespace: company.team
tasks:
  - id: hello
    type: io.kestra.plugin.core.log.Log
    message: ${JSON.stringify(message)}
    timeout: PT30S
`);
}

describe('worker jobs', () => {
  it('renders templates against the execution but leaves secret() for the worker', () => {
    const flow = logFlow("{{ inputs.who }} uses {{ secret('TOKEN') }}");
    const task = flow.tasks[0] as RunnableTask;

    const rendered = renderTaskForWorker(task, { inputs: { who: 'ada' } }, new Date(NOW));

    expect(rendered['message']).toBe("ada uses {{ secret('TOKEN') }}");
    expect(rendered['id']).toBe('hello');
    expect(rendered['timeoutMs']).toBe(30_000);
  });

  it('keys the job by task run and attempt and carries the task timeout', () => {
    const flow = logFlow('hi');
    const { execution, actions } = next(
      flow,
      createExecution(flow, { id: 'exec-1', tenant: 'main' }, NOW),
      { type: 'created' },
      NOW,
    );
    const dispatch = actions.find((action) => action.type === 'dispatch');
    if (dispatch?.type !== 'dispatch') throw new Error('no dispatch');

    const job = encodeWorkerJob({
      execution,
      taskRunId: dispatch.taskRunId,
      attempt: 1,
      task: dispatch.task,
      workerQueueId: 'default',
      taskDefinition: { message: 'hi' },
      now: NOW,
    });
    const payload = JSON.parse(job.value.toString('utf8'));

    expect(job.key).toBe(dispatch.taskRunId);
    expect(payload.messageId).toBe(`${dispatch.taskRunId}:1`);
    expect(payload.payload).toEqual(
      expect.objectContaining({ executionId: 'exec-1', taskId: 'hello', workerQueueId: 'default', timeoutMs: 30_000 }),
    );
  });

  it('carries the deadline after which no worker should start it (its timeout already failed the task run)', () => {
    const flow = logFlow('hi');
    const execution = createExecution(flow, { id: 'exec-1', tenant: 'main' }, NOW);
    const task = flow.tasks[0] as RunnableTask;

    const job = encodeWorkerJob({
      execution,
      taskRunId: 'exec-1:hello',
      attempt: 1,
      task,
      workerQueueId: 'gpu',
      taskDefinition: {},
      now: NOW,
      deadline: NOW + 30_000,
    });

    expect(JSON.parse(job.value.toString('utf8')).payload.deadline).toBe('2026-11-30T01:00:30.000Z');
  });

  it('refuses a job larger than one frame with a message that names the task and the limit', () => {
    const flow = logFlow('hi');
    const execution = createExecution(flow, { id: 'exec-1', tenant: 'main' }, NOW);
    const task = flow.tasks[0] as RunnableTask;

    const encode = () =>
      encodeWorkerJob({
        execution,
        taskRunId: 'exec-1:hello',
        attempt: 1,
        task,
        workerQueueId: 'default',
        taskDefinition: { message: 'x'.repeat(MAX_FRAME_BYTES) },
        now: NOW,
      });

    expect(encode).toThrow(JobTooLarge);
    expect(encode).toThrow(/task 'hello' .* over the 4 MiB limit/);
  });
});
