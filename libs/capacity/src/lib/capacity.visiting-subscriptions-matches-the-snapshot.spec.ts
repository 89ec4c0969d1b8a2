import { CapacityLedger } from './capacity-ledger';

describe("visiting a ledger's subscriptions", () => {
  it('gives the same figures as the snapshot, including a removed subscription still holding slots', () => {
    const ledger = new CapacityLedger(8, [
      { workerQueueId: 'a', reservedPercent: 50, mode: 'ELASTIC' },
      { workerQueueId: 'b', reservedPercent: 25, mode: 'ELASTIC' },
      { workerQueueId: 'c', mode: 'STRICT' },
    ]);
    for (const queue of ['a', 'a', 'b', 'c', 'b', 'b']) ledger.acquire(queue);
    ledger.reconfigure([
      { workerQueueId: 'a', reservedPercent: 25, mode: 'ELASTIC' },
      { workerQueueId: 'c', mode: 'STRICT' },
    ]);

    const visited: { workerQueueId: string; subscribed: boolean; used: number; reserved: number }[] = [];
    ledger.forEachSubscription((workerQueueId, subscribed, used, reserved) =>
      visited.push({ workerQueueId, subscribed, used, reserved }),
    );

    expect(visited).toEqual(
      ledger
        .snapshot()
        .subscriptions.map(({ workerQueueId, subscribed, used, reserved }) => ({ workerQueueId, subscribed, used, reserved })),
    );
    expect(visited.find((entry) => entry.workerQueueId === 'b')).toEqual({
      workerQueueId: 'b',
      subscribed: false,
      used: 3,
      reserved: 0,
    });
  });
});
