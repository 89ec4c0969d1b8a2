import { availabilitySnapshot } from '../index';
import { queue, resolverFor } from './routing-fixtures';

describe('resolver: a connected, non-draining worker serving the queue means DISPATCH', () => {
  const resolver = resolverFor([queue('gpu', ['gpu'])]);

  it('dispatches to the matched queue', () => {
    const available = availabilitySnapshot({
      subscriptions: [{ groupId: 'gpu-workers', workerQueueId: 'gpu' }],
      workers: [{ workerId: 'w1', groupId: 'gpu-workers', draining: false }],
    });
    expect(resolver.resolve({ tags: ['gpu'], fallback: 'FAIL' }, { tenant: 'main' }, available)).toEqual({
      action: 'DISPATCH',
      queueId: 'gpu',
      cause: 'SERVED',
      reason: "dispatched to queue 'gpu'",
      tags: ['gpu'],
    });
  });

  it('draining workers do not count as able to serve', () => {
    const available = availabilitySnapshot({
      subscriptions: [{ groupId: 'gpu-workers', workerQueueId: 'gpu' }],
      workers: [{ workerId: 'w1', groupId: 'gpu-workers', draining: true }],
    });
    expect(resolver.resolve({ tags: ['gpu'], fallback: 'FAIL' }, { tenant: 'main' }, available)).toMatchObject({
      action: 'FAIL',
      cause: 'NO_WORKER_CONNECTED',
    });
  });

  it('a worker of a group that does not subscribe to the queue does not count', () => {
    const available = availabilitySnapshot({
      subscriptions: [{ groupId: 'gpu-workers', workerQueueId: 'gpu' }],
      workers: [{ workerId: 'w1', groupId: 'etl-workers', draining: false }],
    });
    expect(resolver.resolve({ tags: ['gpu'], fallback: 'CANCEL' }, { tenant: 'main' }, available)).toMatchObject({
      action: 'CANCEL',
      cause: 'NO_WORKER_CONNECTED',
    });
  });
});
