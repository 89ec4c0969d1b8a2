import { createExecution, next, simulateFlow } from '../index';
import { constantRetry, flow, historyOf, log, runsOf } from '../test-support/flows';

describe('task timeouts', () => {
  it('fails a task whose worker never answers, on time, and kills its job', () => {
    const result = simulateFlow(flow([log('stuck', { timeoutMs: 30_000 }), log('after')]), {
      script: { stuck: { state: 'HANG' } },
    });
    expect(result.execution.state).toBe('FAILED');
    const [run] = runsOf(result.execution, 'stuck');
    expect(historyOf(run)).toBe('CREATED>SUBMITTED>RUNNING>FAILED');
    expect(run?.histories.at(-1)?.at).toBe(30_000);
    expect(run?.error).toBe("Timed out after PT30S on worker 'worker-1'");
    expect(result.actions).toContainEqual({ type: 'kill-job', taskRunId: run?.id, attempt: 1 });
    expect(runsOf(result.execution, 'after')).toHaveLength(0);
  });

  it('fails a task no worker ever started, saying so', () => {
    const result = simulateFlow(flow([log('orphan', { timeoutMs: 10_000 })]), { script: { orphan: { state: 'UNSTARTED' } } });
    expect(result.execution.state).toBe('FAILED');
    const [run] = runsOf(result.execution, 'orphan');
    expect(historyOf(run)).toBe('CREATED>SUBMITTED>FAILED');
    expect(run?.error).toBe('Timed out after PT10S: no worker started the job');
  });

  it('retries a timed-out task with a fresh timeout per attempt', () => {
    const result = simulateFlow(flow([log('slow', { timeoutMs: 5000, retry: constantRetry(1000, 2) })]), {
      script: { slow: [{ state: 'HANG' }, { state: 'SUCCESS' }] },
    });
    expect(result.execution.state).toBe('SUCCESS');
    const [run] = runsOf(result.execution, 'slow');
    expect(run?.attempts.map((attempt) => attempt.state)).toEqual(['FAILED', 'SUCCESS']);
    const timeouts = result.actions.filter((action) => action.type === 'schedule-timer' && action.timer.kind === 'task-timeout');
    expect(timeouts).toHaveLength(2);
  });

  it('cancels the timeout timer when the task ends in time', () => {
    const result = simulateFlow(flow([log('quick', { timeoutMs: 5000 })]));
    expect(result.execution.state).toBe('SUCCESS');
    expect(result.actions).toContainEqual({
      type: 'cancel-timer',
      timerId: `${runsOf(result.execution, 'quick')[0]?.id}|task-timeout|1`,
    });
  });

  it('fails or cancels a task run whose job the resolver refused, with the reason users see', () => {
    const reason = 'no worker queue matches the tags [gpu]';
    const failed = simulateFlow(flow([log('train'), log('after')]), {
      script: { train: { state: 'REFUSED', as: 'FAILED', reason } },
    });
    expect(failed.execution.state).toBe('FAILED');
    expect(historyOf(runsOf(failed.execution, 'train')[0])).toBe('CREATED>SUBMITTED>FAILED');
    expect(runsOf(failed.execution, 'train')[0]?.error).toBe(reason);
    const cancelled = simulateFlow(flow([log('train')]), { script: { train: { state: 'REFUSED', as: 'CANCELLED', reason } } });
    expect(historyOf(runsOf(cancelled.execution, 'train')[0])).toBe('CREATED>SUBMITTED>CANCELLED');
    expect(cancelled.execution.state).toBe('FAILED');
  });

  it('says why a queued job never started when the executor told it (WORKERS.md)', () => {
    const tree = flow([log('render', { timeoutMs: 60_000 })]);
    let execution = next(tree, createExecution(tree, { id: 'e', tenant: 't' }, 0), { type: 'created' }, 0).execution;
    const queued = {
      type: 'task-run-queued' as const,
      taskRunId: 'e:render',
      attempt: 1,
      workerQueueId: 'gpu',
      waitingReason: 'no group subscribes to queue gpu',
    };
    execution = next(tree, execution, queued, 5).execution;
    expect(next(tree, execution, queued, 6).execution).toBe(execution);
    const timer = { id: 'e:render|task-timeout|1', kind: 'task-timeout' as const, at: 60_000, taskRunId: 'e:render', attempt: 1 };
    const timedOut = next(tree, execution, { type: 'timer-fired', timer }, 60_000);
    expect(timedOut.execution.state).toBe('FAILED');
    expect(timedOut.execution.taskRuns.get('e:render')?.error).toBe(
      "Timed out after PT60S: no worker started the job on queue 'gpu' (no group subscribes to queue gpu)",
    );
    expect(timedOut.actions).toContainEqual({ type: 'kill-job', taskRunId: 'e:render', attempt: 1 });
  });

  describe('a job whose deadline passed before anyone started it (reported by a controller or a worker)', () => {
    const tree = flow([log('render', { timeoutMs: 60_000 })]);
    const timer = { id: 'e:render|task-timeout|1', kind: 'task-timeout' as const, at: 60_000, taskRunId: 'e:render', attempt: 1 };
    const deadlinePassed = { type: 'task-run-deadline-passed' as const, taskRunId: 'e:render', attempt: 1 };
    const queuedExecution = () => {
      const created = next(tree, createExecution(tree, { id: 'e', tenant: 't' }, 0), { type: 'created' }, 0).execution;
      return next(
        tree,
        created,
        {
          type: 'task-run-queued',
          taskRunId: 'e:render',
          attempt: 1,
          workerQueueId: 'gpu',
          waitingReason: 'no worker of group gpu is connected',
        },
        5,
      ).execution;
    };
    const TIMED_OUT = "Timed out after PT60S: no worker started the job on queue 'gpu' (no worker of group gpu is connected)";

    it('ends the task run with the timeout message when the report comes before the timer, and the timer then changes nothing', () => {
      const reported = next(tree, queuedExecution(), deadlinePassed, 60_400);
      expect(reported.execution.state).toBe('FAILED');
      expect(reported.execution.taskRuns.get('e:render')?.error).toBe(TIMED_OUT);
      expect(reported.actions).toContainEqual({ type: 'cancel-timer', timerId: timer.id });
      expect(next(tree, reported.execution, { type: 'timer-fired', timer }, 61_000).execution).toBe(reported.execution);
    });

    it('changes nothing when it comes after the timer: the task run keeps the timeout message', () => {
      const timedOut = next(tree, queuedExecution(), { type: 'timer-fired', timer }, 60_000);
      expect(timedOut.execution.taskRuns.get('e:render')?.error).toBe(TIMED_OUT);
      const late = next(tree, timedOut.execution, deadlinePassed, 60_400);
      expect(late.execution).toBe(timedOut.execution);
      expect(late.actions).toEqual([]);
    });

    it('retries like a timeout, and a late report of the ended attempt leaves the retry alone', () => {
      const retried = flow([log('render', { timeoutMs: 60_000, retry: constantRetry(1000, 2) })]);
      const created = next(retried, createExecution(retried, { id: 'e', tenant: 't' }, 0), { type: 'created' }, 0).execution;
      const reported = next(retried, created, deadlinePassed, 60_400);
      const run = reported.execution.taskRuns.get('e:render');
      expect(run?.state).toBe('RETRYING');
      expect(run?.attempts[0]?.state).toBe('FAILED');
      expect(reported.actions).toContainEqual(
        expect.objectContaining({ type: 'schedule-timer', timer: expect.objectContaining({ kind: 'retry' }) }),
      );
      expect(next(retried, reported.execution, deadlinePassed, 60_500).execution).toBe(reported.execution);
    });
  });
});
