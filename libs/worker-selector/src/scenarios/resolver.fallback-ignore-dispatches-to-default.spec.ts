import { availabilitySnapshot } from '../index';
import { fleet, queue, resolverFor } from './routing-fixtures';

describe("resolver: fallback IGNORE dispatches to the 'default' queue", () => {
  const resolver = resolverFor([queue('gpu', ['gpu'])]);

  it('when no worker serves the matched queue', () => {
    const decision = resolver.resolve(
      { tags: ['gpu'], fallback: 'IGNORE' },
      { tenant: 'main' },
      availabilitySnapshot({
        subscriptions: [
          { groupId: 'gpu-workers', workerQueueId: 'gpu' },
          { groupId: 'default', workerQueueId: 'default' },
        ],
        workers: [{ workerId: 'w1', groupId: 'default', draining: false }],
      }),
    );
    expect(decision).toEqual({
      action: 'DISPATCH',
      queueId: 'default',
      cause: 'NO_WORKER_CONNECTED',
      reason:
        "no worker of the subscribed groups is connected (queue 'gpu'); fallback IGNORE routes the task run to queue 'default'",
      tags: ['gpu'],
    });
  });

  it('when no queue matches at all', () => {
    expect(resolver.resolve({ tags: ['tpu'], fallback: 'IGNORE' }, { tenant: 'main' }, fleet({ gpu: 1 }))).toMatchObject({
      action: 'DISPATCH',
      queueId: 'default',
      cause: 'NO_QUEUE_MATCHES',
    });
  });

  it('a served queue is used as usual', () => {
    expect(resolver.resolve({ tags: ['gpu'], fallback: 'IGNORE' }, { tenant: 'main' }, fleet({ gpu: 1 }))).toMatchObject({
      action: 'DISPATCH',
      queueId: 'gpu',
      cause: 'SERVED',
    });
  });
});
