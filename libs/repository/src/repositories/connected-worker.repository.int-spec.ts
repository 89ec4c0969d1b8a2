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

  it("lists only rows refreshed inside the staleness window, and a refresh keeps a controller's rows alive", async () => {
    const { connectedWorkers } = fixture.repositories;
    await connectedWorkers.upsert(stream('w-1', 'controller-a'), at(0));
    await connectedWorkers.upsert(stream('w-2', 'controller-b'), at(0));
    await connectedWorkers.touchController('controller-a', at(20));

    const live = await connectedWorkers.listLive(at(10));
    expect(live.map((worker) => worker.workerId)).toEqual(['w-1']);
    expect(live[0]).toMatchObject({
      workerGroupId: 'gpu',
      slots: 8,
      queueIds: ['gpu-queue'],
      capacity: { slots: 8, used: 0 },
      labels: { zone: 'eu-1' },
    });
    expect(await connectedWorkers.purgeStale(at(10))).toBe(1);
    expect((await connectedWorkers.listLive(at(0))).map((worker) => worker.workerId)).toEqual(['w-1']);
  });

  it("one refresh of a controller keeps every one of its rows live, shows as their heartbeat, and outlives the rows' own write time", async () => {
    const { connectedWorkers } = fixture.repositories;
    for (const id of ['w-1', 'w-2', 'w-3']) await connectedWorkers.upsert(stream(id, 'controller-a'), at(0));
    await connectedWorkers.upsert(stream('w-4', 'controller-b'), at(25));
    await connectedWorkers.touchController('controller-a', at(20));
    await connectedWorkers.touchController('controller-a', at(30));
    await connectedWorkers.touchController('controller-b', at(5));

    const live = await connectedWorkers.listLive(at(15));
    expect(live.map((worker) => [worker.workerId, worker.heartbeatAt])).toEqual([
      ['w-1', at(30)],
      ['w-2', at(30)],
      ['w-3', at(30)],
      // Written after its controller's last refresh: its own write time counts.
      ['w-4', at(25)],
    ]);
    // Nothing is purged while its controller refreshes, however old the row's own write.
    expect(await connectedWorkers.purgeStale(at(15))).toBe(0);
    expect(await connectedWorkers.listLiveByGroup('gpu', at(26))).toHaveLength(3);
    expect(await connectedWorkers.purgeStale(at(31))).toBe(4);
    expect(await connectedWorkers.listLive(at(0))).toEqual([]);
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

describe('connected worker registry under many concurrent writes (a controller with thousands of busy workers)', () => {
  const fixture = useTestRepositories();

  it('writes every row, each exactly as given, and the later of two writes of one worker wins', async () => {
    const { connectedWorkers } = fixture.repositories;
    const tokenId = '7d0c7b1e-3a52-4a55-9a53-0d7f0b2c1a11';
    const writes = Array.from({ length: 120 }, (_, index) => ({
      ...stream(`busy-${String(index).padStart(3, '0')}`, 'controller-busy', 'busy'),
      queueIds: ['q-a', `q-${index}`],
      capacity: { slots: 8, used: index % 8, subscriptions: [{ workerQueueId: 'q-a', waiting: index }] },
    }));
    await Promise.all([
      ...writes.map((write) => connectedWorkers.upsert(write, at(5))),
      connectedWorkers.upsert(
        { ...stream('busy-007', 'controller-busy', 'busy'), registrationTokenId: tokenId, draining: true, labels: null },
        at(6),
      ),
    ]);

    const rows = await connectedWorkers.listLiveByGroup('busy', at(0));
    expect(rows).toHaveLength(120);
    expect(rows[42]).toMatchObject({
      workerId: 'busy-042',
      workerName: 'busy-042-host',
      controllerInstanceId: 'controller-busy',
      registrationTokenId: null,
      slots: 8,
      draining: false,
      queueIds: ['q-a', 'q-42'],
      capacity: { slots: 8, used: 2, subscriptions: [{ workerQueueId: 'q-a', waiting: 42 }] },
      labels: { zone: 'eu-1' },
      connectedAt: at(0),
      heartbeatAt: at(5),
    });
    expect(rows[7]).toMatchObject({
      workerId: 'busy-007',
      registrationTokenId: tokenId,
      draining: true,
      labels: null,
      queueIds: ['gpu-queue'],
      heartbeatAt: at(6),
    });
  });
});

describe('connected worker registry: row writes racing the controller refresh', () => {
  const fixture = useTestRepositories();

  it('never deadlocks: batches of row writes in any order and refreshes run side by side, all succeed', async () => {
    const { connectedWorkers } = fixture.repositories;
    const ids = Array.from({ length: 1000 }, (_, index) => `race-${String(index).padStart(4, '0')}`);
    await Promise.all(ids.map((id) => connectedWorkers.upsert(stream(id, 'controller-race', 'race'), at(0))));
    for (let round = 1; round <= 10; round++) {
      // Writes arrive in reverse and shuffled orders while the refresh walks every row of the controller.
      const order =
        round % 2 === 0
          ? [...ids].reverse()
          : ids.filter((_, index) => index % 3 === round % 3).concat(ids.filter((_, index) => index % 3 !== round % 3));
      await Promise.all([
        ...order.map((id) =>
          connectedWorkers.upsert({ ...stream(id, 'controller-race', 'race'), draining: round % 2 === 0 }, at(round)),
        ),
        connectedWorkers.touchController('controller-race', at(round)),
        connectedWorkers.touchController('controller-race', at(round)),
      ]);
    }
    const rows = await connectedWorkers.listLiveByGroup('race', at(10));
    expect(rows).toHaveLength(1000);
    expect(rows.every((row) => row.draining)).toBe(true);
  });
});
