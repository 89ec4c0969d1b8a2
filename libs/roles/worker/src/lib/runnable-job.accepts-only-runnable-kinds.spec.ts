import { durationFromMillis, type Job } from '@lanner/frames';
import { runnableTaskOf } from './runnable-job';

function job(definition: unknown, extra: Partial<Job> = {}): Job {
  return {
    taskRunId: 'tr-1',
    attempt: 1,
    executionId: 'ex-1',
    queueId: 'default',
    taskType: 'io.kestra.plugin.core.log.Log',
    taskDefinitionJson: typeof definition === 'string' ? definition : JSON.stringify(definition),
    timeout: undefined,
    deadline: undefined,
    correlationId: 'c',
    tenantId: 'main',
    namespace: 'company.team',
    flowId: 'hello',
    taskId: 'log',
    ...extra,
  };
}

describe('reading a job into a runnable task', () => {
  it('accepts a runnable kind and keeps its properties', () => {
    const read = runnableTaskOf(
      job({ id: 'log', type: 'io.kestra.plugin.core.log.Log', kind: 'Log', message: 'hi', level: 'INFO' }),
    );
    expect(read).toEqual({ ok: true, task: expect.objectContaining({ id: 'log', kind: 'Log', message: 'hi' }) });
  });

  it('takes the timeout from the job', () => {
    const read = runnableTaskOf(
      job({ id: 's', type: 't', kind: 'Sleep', durationMs: 10, timeoutMs: 99_000 }, { timeout: durationFromMillis(1000) }),
    );
    expect(read.ok && read.task.timeoutMs).toBe(1000);
  });

  it('refuses a flowable kind, naming the task type', () => {
    const read = runnableTaskOf(
      job(
        { id: 'p', type: 'io.kestra.plugin.core.flow.Parallel', kind: 'Parallel' },
        { taskType: 'io.kestra.plugin.core.flow.Parallel' },
      ),
    );
    expect(read).toEqual({ ok: false, reason: expect.stringContaining("task type 'io.kestra.plugin.core.flow.Parallel'") });
  });

  it('refuses broken JSON and definitions without id', () => {
    expect(runnableTaskOf(job('{nope')).ok).toBe(false);
    expect(runnableTaskOf(job({ kind: 'Log' })).ok).toBe(false);
    expect(runnableTaskOf(job([1, 2])).ok).toBe(false);
  });
});
