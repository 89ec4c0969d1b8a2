import { DEFAULT_FALLBACK, availabilitySnapshot } from '../index';
import { queue, resolverFor } from './routing-fixtures';

describe('resolver: a selector without fallback waits', () => {
  it('the default fallback is WAIT', () => {
    expect(DEFAULT_FALLBACK).toBe('WAIT');
    const decision = resolverFor([queue('gpu', ['gpu'])]).resolve(
      { tags: ['gpu'] },
      { tenant: 'main' },
      availabilitySnapshot({ subscriptions: [], workers: [] }),
    );
    expect(decision).toMatchObject({ action: 'WAIT_AND_DISPATCH', queueId: 'gpu' });
  });

  it('untagged work waits on the default queue when no default worker is connected', () => {
    const nobody = availabilitySnapshot({ subscriptions: [{ groupId: 'default', workerQueueId: 'default' }], workers: [] });
    expect(resolverFor([]).resolve(undefined, { tenant: 'main' }, nobody)).toMatchObject({
      action: 'WAIT_AND_DISPATCH',
      queueId: 'default',
      cause: 'NO_WORKER_CONNECTED',
    });
  });
});
