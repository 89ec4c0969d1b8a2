import type { ConnectedWorkerWrite } from '@lanner/model';
import { useTestRepositories } from '../testing/test-database';

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 30, 12, 0, seconds));

function stream(workerId: string, controllerInstanceId: string, workerGroupId = 'gpu'): ConnectedWorkerWrite {
  return {
    workerId,
    workerGroupId,
    workerName: `${workerId}-host`,
    controllerInstanceId,
    registrationTokenId: null,
    slots: 8,
    draining: false,
    queueIds: ['gpu-queue'],
    capacity: { slots: 8, used: 0 },
    labels: { zone: 'eu-1' },
    connectedAt: at(0),
  };
}

describe('connected worker registry', () => {
  const fixture = useTestRepositories();

  it('lists only rows refreshed inside the staleness window, and a refresh keeps a controller\'s rows alive', async () => {
    const { connectedWorkers } = fixture.repositories;
    await connectedWorkers.upsert(stream('w-1', 'controller-a'), at(0));
    await connectedWorkers.upsert(stream('w-2', 'controller-b'), at(0));
    expect(await connectedWorkers.touchController('controller-a', at(20))).toBe(1);

    const live = await connectedWorkers.listLive(at(10));
    expect(live.map((worker) => worker.workerId)).toEqual(['w-1']);
    expect(live[0]).toMatchObject({ workerGroupId: 'gpu', slots: 8, queueIds: ['gpu-queue'], capacity: { slots: 8, used: 0 }, labels: { zone: 'eu-1' } });
    expect(await connectedWorkers.purgeStale(at(10))).toBe(1);
    expect((await connectedWorkers.listLive(at(0))).map((worker) => worker.workerId)).toEqual(['w-1']);
  });

  it('replaces a row on reconnect, and a controller removes only rows it still owns', async () => {
    const { connectedWorkers } = fixture.repositories;
    await connectedWorkers.upsert(stream('w-1', 'controller-a'), at(0));
    await connectedWorkers.upsert({ ...stream('w-1', 'controller-b'), draining: true }, at(1));
    await connectedWorkers.remove('w-1', 'controller-a');
    const [row] = await connectedWorkers.listLiveByGroup('gpu', at(0));
    expect(row).toMatchObject({ workerId: 'w-1', controllerInstanceId: 'controller-b', draining: true });
    await connectedWorkers.removeController('controller-b');
    expect(await connectedWorkers.listLiveByGroup('gpu', at(0))).toEqual([]);
  });
});
