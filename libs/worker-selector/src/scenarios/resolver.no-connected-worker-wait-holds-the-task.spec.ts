import { REASON_NO_WORKER_CONNECTED, availabilitySnapshot } from '../index';
import { queue, resolverFor } from './routing-fixtures';

describe('resolver: no connected worker with fallback WAIT holds the job on the queue', () => {
  const resolver = resolverFor([queue('gpu', ['gpu'])]);
  const subscribedButNobodyConnected = availabilitySnapshot({
    subscriptions: [{ groupId: 'gpu-workers', workerQueueId: 'gpu' }],
    workers: [],
  });

  it('returns WAIT_AND_DISPATCH on the matched queue and says why', () => {
    const decision = resolver.resolve({ tags: ['gpu'], fallback: 'WAIT' }, { tenant: 'main' }, subscribedButNobodyConnected);
    expect(decision).toEqual({
      action: 'WAIT_AND_DISPATCH',
      queueId: 'gpu',
      cause: 'NO_WORKER_CONNECTED',
      reason: `${REASON_NO_WORKER_CONNECTED} (queue 'gpu'); the job waits on the queue (fallback WAIT)`,
      tags: ['gpu'],
    });
  });
});
