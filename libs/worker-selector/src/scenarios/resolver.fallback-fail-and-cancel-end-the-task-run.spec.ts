import { availabilitySnapshot } from '../index';
import { queue, resolverFor } from './routing-fixtures';

describe('resolver: with no worker, fallback FAIL fails and fallback CANCEL cancels the task run', () => {
  const resolver = resolverFor([queue('gpu', ['gpu'])]);
  const noGroup = availabilitySnapshot({ subscriptions: [], workers: [] });

  it('FAIL -> FAIL, naming the queue it would have gone to', () => {
    expect(resolver.resolve({ tags: ['gpu'], fallback: 'FAIL' }, { tenant: 'main' }, noGroup)).toEqual({
      action: 'FAIL',
      queueId: 'gpu',
      cause: 'NO_GROUP_SUBSCRIBES',
      reason: "no group subscribes to queue 'gpu'; the task run fails (fallback FAIL)",
      tags: ['gpu'],
    });
  });

  it('CANCEL -> CANCEL', () => {
    expect(resolver.resolve({ tags: ['gpu'], fallback: 'CANCEL' }, { tenant: 'main' }, noGroup)).toMatchObject({
      action: 'CANCEL',
      queueId: 'gpu',
      reason: "no group subscribes to queue 'gpu'; the task run is cancelled (fallback CANCEL)",
    });
  });
});
