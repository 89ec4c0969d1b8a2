import { CapacityLedger } from './capacity-ledger';
import { DispatchPolicy } from './dispatch-policy';
import { drain } from './capacity.spec-support';

describe('dispatch over the workers one controller holds', () => {
  it('prefers a worker with a shared slot over borrowing a reserved slot on another worker', () => {
    const lendingWorker = new CapacityLedger(2, [
      { workerQueueId: 'tenant', reservedPercent: 100, mode: 'ELASTIC' },
      { workerQueueId: 'burst', mode: 'ELASTIC' },
    ]);
    const sharedWorker = new CapacityLedger(2, [{ workerQueueId: 'burst', mode: 'ELASTIC' }]);
    const dispatch = new DispatchPolicy().next([lendingWorker, sharedWorker], new Map([['burst', 1]]));
    expect(dispatch).toMatchObject({ ledgerIndex: 1, workerQueueId: 'burst' });
    expect(dispatch?.lease.occupies).toBe('SHARED');
  });

  it('spreads equal work over equal workers', () => {
    const workers = [0, 1, 2].map(() => new CapacityLedger(4, [{ workerQueueId: 'q', mode: 'STRICT' }]));
    const dispatches = drain(new DispatchPolicy(), workers, new Map([['q', 6]]));
    expect(dispatches.map((dispatch) => dispatch.ledgerIndex)).toEqual([0, 1, 2, 0, 1, 2]);
  });

  it("serves each worker's floor for a queue, and sends a queue only to workers that subscribe to it", () => {
    const gpuWorker = new CapacityLedger(2, [
      { workerQueueId: 'gpu', reservedPercent: 50, mode: 'STRICT' },
      { workerQueueId: 'default', mode: 'STRICT' },
    ]);
    const cpuWorker = new CapacityLedger(2, [{ workerQueueId: 'default', mode: 'STRICT' }]);
    const waiting = new Map([
      ['default', 10],
      ['gpu', 10],
    ]);
    const dispatches = drain(new DispatchPolicy(), [cpuWorker, gpuWorker], waiting);
    expect(dispatches.filter((dispatch) => dispatch.workerQueueId === 'gpu').every((d) => d.ledgerIndex === 1)).toBe(true);
    expect(dispatches[0]).toMatchObject({ workerQueueId: 'gpu', ledgerIndex: 1, reason: 'FLOOR' });
    expect(cpuWorker.freeSlots + gpuWorker.freeSlots).toBe(0);
  });
});
