import type { RunningJobRecord } from '@lanner/model';
import { NotFound } from '../errors';
import { useTestRepositories } from '../testing/test-database';

describe('running-job store and service instances', () => {
  const fixture = useTestRepositories();

  const job = (taskRunId: string, attempt: number, workerId: string): RunningJobRecord => ({
    taskRunId,
    attempt,
    tenantId: 'main',
    executionId: 'exec-1',
    workerQueueId: 'default',
    workerId,
    controllerInstanceId: 'controller-a',
    job: { taskRunId, attempt, task: { type: 'io.kestra.plugin.core.log.Log', message: 'hi' } },
    dispatchedAt: new Date('2026-11-30T10:00:00.000Z'),
  });

  it('records a redelivered job once', async () => {
    expect(await fixture.repositories.runningJobs.insert(job('tr-1', 1, 'worker-1'))).toBe(true);
    expect(await fixture.repositories.runningJobs.insert({ ...job('tr-1', 1, 'worker-2') })).toBe(false);
    expect(await fixture.repositories.runningJobs.get('tr-1', 1)).toEqual(job('tr-1', 1, 'worker-1'));
    expect(await fixture.repositories.runningJobs.insert(job('tr-1', 2, 'worker-2'))).toBe(true);

    expect(
      (await fixture.repositories.runningJobs.listByController('controller-a')).map((j) => [j.taskRunId, j.attempt]),
    ).toEqual([
      ['tr-1', 1],
      ['tr-1', 2],
    ]);
    expect((await fixture.repositories.runningJobs.listByWorker('worker-2')).map((j) => j.attempt)).toEqual([2]);
    expect(await fixture.repositories.runningJobs.remove('tr-1', 1)).toBe(true);
    expect(await fixture.repositories.runningJobs.remove('tr-1', 1)).toBe(false);
    expect(await fixture.repositories.runningJobs.listByWorker('worker-1')).toEqual([]);
  });

  it('registers instances and records heartbeats and state changes', async () => {
    const t0 = new Date('2026-11-30T10:00:00.000Z');
    const t1 = new Date('2026-11-30T10:00:03.000Z');
    const registered = await fixture.repositories.serviceInstances.register(
      { id: 'controller-a', role: 'CONTROLLER', host: 'node-1' },
      t0,
    );
    expect(registered).toMatchObject({ state: 'RUNNING', heartbeatAt: t0, startedAt: t0 });
    expect((await fixture.repositories.serviceInstances.heartbeat('controller-a', t1)).heartbeatAt).toEqual(t1);
    expect(
      await fixture.repositories.serviceInstances.listSilentSince('RUNNING', new Date('2026-11-30T10:00:15.000Z')),
    ).toHaveLength(1);
    expect((await fixture.repositories.serviceInstances.setState('controller-a', 'DISCONNECTED', t1)).state).toBe('DISCONNECTED');
    await expect(fixture.repositories.serviceInstances.heartbeat('ghost', t1)).rejects.toBeInstanceOf(NotFound);
    await expect(fixture.repositories.ping()).resolves.toBeUndefined();
  });
});
