import { CapacityLedger } from './capacity-ledger';
import { QueueNotSubscribed } from './capacity-errors';

describe('a worker queue the worker does not subscribe to', () => {
  const ledger = new CapacityLedger(4, [{ workerQueueId: 'etl', mode: 'ELASTIC' }]);

  it('is refused with a domain error naming the queue, and takes no slot', () => {
    expect(() => ledger.acquire('gpu')).toThrow(QueueNotSubscribed);
    expect(() => ledger.acquire('gpu')).toThrow("'gpu'");
    expect(ledger.snapshot().used).toBe(0);
  });

  it('is reported as having no slot by the read-only queries', () => {
    expect(ledger.isSubscribed('gpu')).toBe(false);
    expect(ledger.peek('gpu')).toBeUndefined();
    expect(ledger.floorShortfall('gpu')).toBe(0);
    expect(ledger.idleReservedSlots('gpu')).toBe(0);
  });
});
