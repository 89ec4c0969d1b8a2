import { fleet, queue, resolverFor } from './routing-fixtures';

describe('resolver: when no queue matches, the task run fails with a clear message', () => {
  const resolver = resolverFor([queue('gpu', ['gpu'])]);

  it.each(['WAIT', 'FAIL', 'CANCEL', undefined] as const)('fails with fallback %s (waiting could never end)', (fallback) => {
    const decision = resolver.resolve({ tags: ['gpu', 'eu'], fallback }, { tenant: 'main' }, fleet({ gpu: 4 }));
    expect(decision).toEqual({
      action: 'FAIL',
      queueId: null,
      cause: 'NO_QUEUE_MATCHES',
      reason: "no worker queue matches the tags [gpu, eu] (match ALL) for tenant 'main'",
      tags: ['gpu', 'eu'],
    });
  });
});
