import type { ConnectedWorkerRecord, StoredJson } from '@lanner/model';
import { workerCapacityView } from './topology-view';

function worker(capacity: StoredJson, draining = false): ConnectedWorkerRecord {
  return {
    workerId: 'w-1',
    workerGroupId: 'gpu-team',
    workerName: 'gpu-box-1',
    controllerInstanceId: 'controller-1',
    registrationTokenId: null,
    slots: 16,
    draining,
    queueIds: ['gpu', 'etl'],
    capacity,
    labels: null,
    connectedAt: new Date('2026-11-30T04:00:00Z'),
    heartbeatAt: new Date('2026-11-30T04:00:05Z'),
  };
}

// The 16-slot worked example of WORKERS.md: gpu 50 % ELASTIC, etl 25 % ELASTIC, 4 shared; etl borrows one idle gpu slot.
const SNAPSHOT: StoredJson = {
  slots: 16,
  reserved: 12,
  shared: 4,
  used: 7,
  free: 9,
  sharedUsed: 2,
  borrowed: 1,
  lent: 1,
  subscriptions: [
    {
      workerQueueId: 'gpu',
      mode: 'ELASTIC',
      subscribed: true,
      reservedPercent: 50,
      reserved: 8,
      used: 2,
      reservedUsed: 2,
      sharedUsed: 0,
      borrowed: 0,
      lent: 1,
      idleReserved: 5,
    },
    {
      workerQueueId: 'etl',
      mode: 'ELASTIC',
      subscribed: true,
      reservedPercent: 25,
      reserved: 4,
      used: 5,
      reservedUsed: 2,
      sharedUsed: 2,
      borrowed: 1,
      lent: 0,
      idleReserved: 2,
      waiting: 3,
    },
  ],
};

describe('capacity view: what GET /worker-groups/{id}/capacity shows of a worker', () => {
  it('reports slots, reserved, used, borrowed, lent and waiting per worker and per subscription', () => {
    expect(workerCapacityView(worker(SNAPSHOT))).toEqual({
      workerId: 'w-1',
      name: 'gpu-box-1',
      slots: 16,
      state: 'CONNECTED',
      reported: true,
      reserved: 12,
      used: 7,
      borrowed: 1,
      lent: 1,
      waiting: 3,
      subscriptions: [
        { workerQueueId: 'gpu', mode: 'ELASTIC', reservedPercent: 50, reserved: 8, used: 2, borrowed: 0, lent: 1, waiting: 0 },
        { workerQueueId: 'etl', mode: 'ELASTIC', reservedPercent: 25, reserved: 4, used: 5, borrowed: 1, lent: 0, waiting: 3 },
      ],
    });
  });

  it('shows a worker whose controller wrote no snapshot yet with its declared slots and zero figures', () => {
    expect(workerCapacityView(worker(null, true))).toEqual({
      workerId: 'w-1',
      name: 'gpu-box-1',
      slots: 16,
      state: 'DRAINING',
      reported: false,
      reserved: 0,
      used: 0,
      borrowed: 0,
      lent: 0,
      waiting: 0,
      subscriptions: [],
    });
  });

  it('reads a subscription without a reservation as reservedPercent null, and ignores entries it cannot read', () => {
    const view = workerCapacityView(
      worker({
        slots: 4,
        subscriptions: [
          { workerQueueId: 'etl', mode: 'STRICT', reservedPercent: 0, reserved: 0, used: 1 },
          'garbage',
          { used: 2 },
        ],
      }),
    );
    expect(view.subscriptions).toEqual([
      { workerQueueId: 'etl', mode: 'STRICT', reservedPercent: null, reserved: 0, used: 1, borrowed: 0, lent: 0, waiting: 0 },
    ]);
    expect(view).toMatchObject({ slots: 4, used: 0, waiting: 0 });
  });
});
