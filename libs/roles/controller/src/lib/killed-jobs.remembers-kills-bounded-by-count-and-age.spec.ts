import type { WorkerJobMessage } from '@lanner/frames';
import { endedJob, KilledJobMemory } from './killed-jobs';

function job(taskRunId: string, attempt: number, deadline?: string): WorkerJobMessage {
  return {
    schemaVersion: 1,
    messageId: `${taskRunId}:${attempt}`,
    type: 'worker.job',
    occurredAt: '2026-11-30T07:00:00.000Z',
    payload: {
      tenantId: 'main',
      executionId: `ex-${taskRunId}`,
      taskRunId,
      attempt,
      workerQueueId: 'default',
      namespace: 'company.team',
      flowId: 'nightly',
      taskId: 'step',
      taskType: 'io.kestra.plugin.core.log.Log',
      taskDefinition: { id: 'step', type: 'io.kestra.plugin.core.log.Log', message: 'hi' },
      ...(deadline === undefined ? {} : { deadline }),
    },
  } as WorkerJobMessage;
}

const NOW = Date.parse('2026-11-30T07:30:00.000Z');

describe('killed jobs: a job of a killed task run, or past its deadline, is never sent', () => {
  it('drops the killed attempt of a task run as KILLED with the reason, but not its next attempt nor other task runs', () => {
    const memory = new KilledJobMemory();
    memory.remember('tr-1', 1, 'execution killed by alice', NOW);
    expect(endedJob(job('tr-1', 1), memory, NOW + 1)).toEqual({
      outcome: 'KILLED',
      errorMessage: 'killed before any worker started it: execution killed by alice',
    });
    expect(endedJob(job('tr-1', 2), memory, NOW + 1)).toBeUndefined();
    expect(endedJob(job('tr-2', 1), memory, NOW + 1)).toBeUndefined();
  });

  it('forgets a kill older than the age limit', () => {
    const memory = new KilledJobMemory(10, 60_000);
    memory.remember('tr-1', 1, 'killed', NOW);
    expect(memory.killReason('tr-1', 1, NOW + 60_000)).toBe('killed');
    expect(memory.killReason('tr-1', 1, NOW + 60_001)).toBeUndefined();
    expect(memory.size).toBe(0);
  });

  it('keeps at most its limit of kills, forgetting the oldest first (a repeated kill counts as new)', () => {
    const memory = new KilledJobMemory(3, 60_000);
    memory.remember('tr-1', 1, 'a', NOW);
    memory.remember('tr-2', 1, 'b', NOW + 1);
    memory.remember('tr-3', 1, 'c', NOW + 2);
    memory.remember('tr-1', 1, 'a again', NOW + 3);
    memory.remember('tr-4', 1, 'd', NOW + 4);
    expect(memory.size).toBe(3);
    expect(memory.killReason('tr-2', 1, NOW + 5)).toBeUndefined();
    expect(memory.killReason('tr-1', 1, NOW + 5)).toBe('a again');
    expect(memory.killReason('tr-4', 1, NOW + 5)).toBe('d');
  });

  it('tells a worker of a kill once, and never when a Kill frame already went to the worker holding the job', () => {
    const memory = new KilledJobMemory();
    memory.remember('tr-1', 1, 'killed while waiting for a slot', NOW);
    memory.remember('tr-2', 1, 'killed while running', NOW, true);
    expect(memory.takeUnsentKill('tr-1', 1, NOW + 1)).toBe('killed while waiting for a slot');
    expect(memory.takeUnsentKill('tr-1', 1, NOW + 2)).toBeUndefined();
    expect(memory.takeUnsentKill('tr-2', 1, NOW + 1)).toBeUndefined();
    // A repeated broadcast of a kill already told does not tell it again.
    memory.remember('tr-1', 1, 'killed while waiting for a slot', NOW + 3);
    expect(memory.takeUnsentKill('tr-1', 1, NOW + 4)).toBeUndefined();
    expect(memory.takeUnsentKill('tr-3', 1, NOW + 4)).toBeUndefined();
  });

  it('fails a job whose deadline has passed with the deadline in the message, flagged as such, and sends one whose deadline is ahead', () => {
    const memory = new KilledJobMemory();
    expect(endedJob(job('tr-1', 1, '2026-11-30T07:29:59.000Z'), memory, NOW)).toEqual({
      outcome: 'FAILED',
      errorMessage: 'the job reached its deadline (2026-11-30T07:29:59.000Z) before a worker could start it',
      deadlinePassed: true,
    });
    expect(endedJob(job('tr-1', 1, '2026-11-30T07:30:01.000Z'), memory, NOW)).toBeUndefined();
    expect(endedJob(job('tr-1', 1), memory, NOW)).toBeUndefined();
  });
});
