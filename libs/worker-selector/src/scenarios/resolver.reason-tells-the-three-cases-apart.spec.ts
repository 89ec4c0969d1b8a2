import { availabilitySnapshot } from '../index';
import { queue, resolverFor } from './routing-fixtures';

// WORKERS.md lessons: the task run's state message says which case holds.
describe('resolver: the reason tells "no queue", "no group" and "no worker" apart', () => {
  const resolver = resolverFor([queue('gpu', ['gpu'])]);
  const tenant = { tenant: 'main' };

  it('no worker queue matches', () => {
    const decision = resolver.resolve({ tags: ['tpu'] }, tenant, availabilitySnapshot({ subscriptions: [], workers: [] }));
    expect(decision.cause).toBe('NO_QUEUE_MATCHES');
    expect(decision.reason).toMatch(/^no worker queue matches /);
  });

  it('no group subscribes to queue X', () => {
    const decision = resolver.resolve({ tags: ['gpu'] }, tenant, availabilitySnapshot({ subscriptions: [], workers: [] }));
    expect(decision.cause).toBe('NO_GROUP_SUBSCRIBES');
    expect(decision.reason).toMatch(/^no group subscribes to queue 'gpu'/);
  });

  it('no worker of the subscribed groups is connected', () => {
    const decision = resolver.resolve(
      { tags: ['gpu'] },
      tenant,
      availabilitySnapshot({ subscriptions: [{ groupId: 'gpu-workers', workerQueueId: 'gpu' }], workers: [] }),
    );
    expect(decision.cause).toBe('NO_WORKER_CONNECTED');
    expect(decision.reason).toMatch(/^no worker of the subscribed groups is connected/);
  });
});
