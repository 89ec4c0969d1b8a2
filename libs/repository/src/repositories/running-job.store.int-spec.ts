import type { RunningJobRecord } from '@lanner/model';
import { useTestRepositories } from '../testing/test-database';

const dispatchedAt = new Date(Date.UTC(2026, 10, 30, 12, 0, 0));

function job(taskRunId: string, holder: { workerId: string; controllerInstanceId: string }, attempt = 1): RunningJobRecord {
  return {
    taskRunId,
    attempt,
    tenantId: 'main',
    executionId: `ex-${taskRunId}`,
    workerQueueId: 'gpu-queue',
    workerId: holder.workerId,
    controllerInstanceId: holder.controllerInstanceId,
    job: { correlationId: `c-${taskRunId}` },
    dispatchedAt,
  };
}

const oldStream = { workerId: 'w-1', controllerInstanceId: 'controller-a' };
const newStream = { workerId: 'w-1', controllerInstanceId: 'controller-b' };

describe('running-job store: adoption and lost reports', () => {
  const fixture = useTestRepositories();

  it('reassigns a row only while the expected holder still has it, keeping the job itself unchanged', async () => {
    const { runningJobs } = fixture.repositories;
    await runningJobs.insert(job('tr-move', oldStream));

    expect(
      await runningJobs.reassign('tr-move', 1, { workerId: 'w-other', controllerInstanceId: 'controller-a' }, newStream),
    ).toBe(false);
    expect(await runningJobs.reassign('tr-move', 1, { controllerInstanceId: 'controller-z' }, newStream)).toBe(false);
    expect(await runningJobs.get('tr-move', 1)).toMatchObject(oldStream);

    expect(await runningJobs.reassign('tr-move', 1, oldStream, newStream)).toBe(true);
    expect(await runningJobs.get('tr-move', 1)).toEqual({ ...job('tr-move', newStream) });
    // The old holder no longer matches: a second move from it does nothing.
    expect(await runningJobs.reassign('tr-move', 1, oldStream, { workerId: 'w-2', controllerInstanceId: 'controller-c' })).toBe(
      false,
    );

    // Only the controller named: any worker of it.
    expect(
      await runningJobs.reassign(
        'tr-move',
        1,
        { controllerInstanceId: 'controller-b' },
        { workerId: 'w-3', controllerInstanceId: 'controller-c' },
      ),
    ).toBe(true);
    expect(await runningJobs.reassign('tr-move', 1, 'any', newStream)).toBe(true);
    expect(await runningJobs.get('tr-move', 1)).toMatchObject(newStream);
    expect(await runningJobs.listByController('controller-c')).toEqual([]);
  });

  it('never brings back a row that is gone (its result was recorded or it was reported lost)', async () => {
    const { runningJobs } = fixture.repositories;
    await runningJobs.insert(job('tr-done', oldStream));
    expect(await runningJobs.remove('tr-done', 1)).toBe(true);

    expect(await runningJobs.reassign('tr-done', 1, oldStream, newStream)).toBe(false);
    expect(await runningJobs.reassign('tr-done', 1, 'any', newStream)).toBe(false);
    expect(await runningJobs.get('tr-done', 1)).toBeNull();
  });

  it('removes a row only for its current holder, and only that attempt', async () => {
    const { runningJobs } = fixture.repositories;
    await runningJobs.insert(job('tr-held', oldStream, 1));
    await runningJobs.insert(job('tr-held', oldStream, 2));

    expect(
      await runningJobs.removeLostIfHeldBy('tr-held', 1, { workerId: 'w-other', controllerInstanceId: 'controller-a' }),
    ).toBe(false);
    expect(await runningJobs.removeLostIfHeldBy('tr-held', 1, newStream)).toBe(false);
    expect(await runningJobs.get('tr-held', 1)).not.toBeNull();

    expect(await runningJobs.removeLostIfHeldBy('tr-held', 1, oldStream)).toBe(true);
    expect(await runningJobs.get('tr-held', 1)).toBeNull();
    expect(await runningJobs.get('tr-held', 2)).toMatchObject(oldStream);
    expect(await runningJobs.removeLostIfHeldBy('tr-held', 1, oldStream)).toBe(false);

    // Adopted first: the old holder's lost report cannot remove it.
    expect(await runningJobs.reassign('tr-held', 2, oldStream, newStream)).toBe(true);
    expect(await runningJobs.removeLostIfHeldBy('tr-held', 2, oldStream)).toBe(false);
    expect(await runningJobs.get('tr-held', 2)).toMatchObject(newStream);
  });

  it('lets exactly one of a racing adoption and lost report win: the job is adopted or reported lost, never both', async () => {
    const { runningJobs } = fixture.repositories;
    const rounds = 40;
    let adoptedCount = 0;
    let lostCount = 0;
    for (let round = 0; round < rounds; round += 1) {
      const taskRunId = `tr-race-${round}`;
      await runningJobs.insert(job(taskRunId, oldStream));
      // Alternate which one is issued first, so both orders are exercised.
      const [adopted, lost] =
        round % 2 === 0
          ? await Promise.all([
              runningJobs.reassign(taskRunId, 1, oldStream, newStream),
              runningJobs.removeLostIfHeldBy(taskRunId, 1, oldStream),
            ])
          : await Promise.all([
              runningJobs.removeLostIfHeldBy(taskRunId, 1, oldStream),
              runningJobs.reassign(taskRunId, 1, oldStream, newStream),
            ]).then(([removed, moved]) => [moved, removed] as const);

      expect(adopted !== lost).toBe(true);
      const row = await runningJobs.get(taskRunId, 1);
      if (adopted) {
        adoptedCount += 1;
        expect(row).toMatchObject(newStream);
      } else {
        lostCount += 1;
        expect(row).toBeNull();
      }
    }
    expect(adoptedCount + lostCount).toBe(rounds);
  });
});
