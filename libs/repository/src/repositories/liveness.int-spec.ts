import type { RunningJobRecord } from '@lanner/model';
import { NotFound } from '../errors';
import { useTestRepositories } from '../testing/test-database';

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 30, 10, 0, seconds));

describe('liveness: cluster leases, instance transitions and orphaned jobs', () => {
  const fixture = useTestRepositories();

  it('gives a lease to one holder until it expires, then to another; the holder renews and releases it', async () => {
    const locks = fixture.repositories.clusterLocks;
    expect(await locks.tryAcquire('liveness-coordinator', 'executor-a', 10_000, at(0))).toBe(true);
    expect(await locks.tryAcquire('liveness-coordinator', 'executor-b', 10_000, at(5))).toBe(false);
    // Renewal pushes the expiry: b still loses at 12 s.
    expect(await locks.tryAcquire('liveness-coordinator', 'executor-a', 10_000, at(8))).toBe(true);
    expect(await locks.tryAcquire('liveness-coordinator', 'executor-b', 10_000, at(12))).toBe(false);
    expect(await locks.get('liveness-coordinator')).toEqual({ holder: 'executor-a', expiresAt: at(18) });
    // a stops renewing: b takes it once expired, and a cannot take it back.
    expect(await locks.tryAcquire('liveness-coordinator', 'executor-b', 10_000, at(18))).toBe(true);
    expect(await locks.tryAcquire('liveness-coordinator', 'executor-a', 10_000, at(19))).toBe(false);
    // Releasing someone else's lease does nothing; releasing one's own frees it at once.
    await locks.release('liveness-coordinator', 'executor-a');
    expect((await locks.get('liveness-coordinator'))?.holder).toBe('executor-b');
    await locks.release('liveness-coordinator', 'executor-b');
    expect(await locks.get('liveness-coordinator')).toBeNull();
    expect(await locks.tryAcquire('liveness-coordinator', 'executor-a', 10_000, at(20))).toBe(true);
  });

  it('lets exactly one of many simultaneous contenders win', async () => {
    const locks = fixture.repositories.clusterLocks;
    const contenders = Array.from({ length: 8 }, (_, i) => `executor-${i}`);
    const won = await Promise.all(contenders.map((holder) => locks.tryAcquire('race', holder, 10_000, at(0))));
    expect(won.filter(Boolean)).toHaveLength(1);
  });

  it('moves silent instances only, and a heartbeat brings a DISCONNECTED instance back', async () => {
    const instances = fixture.repositories.serviceInstances;
    await instances.register({ id: 'silent-1', role: 'CONTROLLER', host: 'node-1' }, at(0));
    await instances.register({ id: 'alive-1', role: 'INDEXER', host: 'node-2' }, at(0));
    await instances.recordHeartbeat('alive-1', at(9));

    const disconnected = await instances.transitionSilent(['RUNNING'], 'DISCONNECTED', at(5), at(15));
    expect(disconnected.map((instance) => instance.id)).toEqual(['silent-1']);
    expect(await instances.transitionSilent(['RUNNING'], 'DISCONNECTED', at(5), at(16))).toEqual([]);
    // Not yet 30 s in DISCONNECTED: stays.
    expect(await instances.transitionSilent(['DISCONNECTED'], 'NOT_RUNNING', at(5), at(40), at(10))).toEqual([]);

    expect(await instances.recordHeartbeat('silent-1', at(41))).toBe('RUNNING');
    expect((await instances.get('silent-1')).stateChangedAt).toEqual(at(41));
    expect(await instances.recordHeartbeat('alive-1', at(41))).toBe('RUNNING');
    await expect(instances.recordHeartbeat('ghost', at(41))).rejects.toBeInstanceOf(NotFound);

    await instances.setState('alive-1', 'TERMINATED', at(42));
    expect(await instances.purge(['TERMINATED', 'NOT_RUNNING'], at(42))).toBe(0);
    expect(await instances.purge(['TERMINATED', 'NOT_RUNNING'], at(43))).toBe(1);
    expect((await instances.list()).map((instance) => instance.id)).toEqual(['silent-1']);
  });

  it('finds the jobs of gone controllers only, and keeps an ended instance while it still holds jobs', async () => {
    const { runningJobs, serviceInstances } = fixture.repositories;
    const job = (controllerInstanceId: string, taskRunId: string): RunningJobRecord => ({
      taskRunId,
      attempt: 1,
      tenantId: 'main',
      executionId: `exec-${taskRunId}`,
      workerQueueId: 'default',
      workerId: 'worker-1',
      controllerInstanceId,
      job: {},
      dispatchedAt: at(0),
    });
    await serviceInstances.register({ id: 'ctl-running', role: 'CONTROLLER', host: 'h' }, at(0));
    await serviceInstances.register({ id: 'ctl-dead', role: 'CONTROLLER', host: 'h' }, at(0));
    await serviceInstances.setState('ctl-dead', 'NOT_RUNNING', at(40));
    await serviceInstances.register({ id: 'ctl-stopped-long-ago', role: 'STANDALONE', host: 'h' }, at(0));
    await serviceInstances.setState('ctl-stopped-long-ago', 'TERMINATED', at(10));
    await serviceInstances.register({ id: 'ctl-just-stopped', role: 'CONTROLLER', host: 'h' }, at(0));
    await serviceInstances.setState('ctl-just-stopped', 'TERMINATED', at(50));
    for (const [controller, taskRunId] of [
      ['ctl-running', 'tr-a'],
      ['ctl-dead', 'tr-b'],
      ['ctl-stopped-long-ago', 'tr-c'],
      ['ctl-just-stopped', 'tr-d'],
      ['ctl-never-registered', 'tr-e'],
    ]) {
      await runningJobs.insert(job(controller, taskRunId));
    }

    // Stopped before 30 s: its workers had their grace period to re-attach elsewhere.
    expect((await runningJobs.listOrphaned(at(30), 10)).map((j) => j.taskRunId).sort()).toEqual(['tr-b', 'tr-c']);
    expect(await runningJobs.listOrphaned(at(30), 1)).toHaveLength(1);

    // Ended instances holding jobs are kept (the jobs are found through them); the others go.
    expect(await serviceInstances.purge(['NOT_RUNNING', 'TERMINATED'], at(59))).toBe(0);
    await runningJobs.removeLostIfHeldBy('tr-b', 1, { workerId: 'worker-1', controllerInstanceId: 'ctl-dead' });
    expect(await serviceInstances.purge(['NOT_RUNNING', 'TERMINATED'], at(59))).toBe(1);
    expect((await serviceInstances.list()).map((instance) => instance.id)).not.toContain('ctl-dead');
  });
});
