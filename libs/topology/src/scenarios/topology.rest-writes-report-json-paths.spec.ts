import { checkWorkerQueueDeletion, validateWorkerGroupWrite, validateWorkerQueueWrite } from '../index';

describe('topology: REST topology writes are validated with JSON paths into the body', () => {
  it('a worker queue body', () => {
    expect(validateWorkerQueueWrite('gpu', { tags: ['gpu', 7, 'gpu'], allowedTenants: ['acme', ''], region: 'eu' }, [])).toEqual({
      ok: false,
      problems: [
        { path: 'region', message: 'is not a known field of a worker queue' },
        { path: 'tags[1]', message: 'must be a non-blank string' },
        { path: 'tags[2]', message: "repeats the tag 'gpu'" },
        { path: 'allowedTenants[1]', message: 'must be a non-blank tenant id' },
      ],
    });
  });

  it('a valid worker queue body comes back normalised', () => {
    expect(validateWorkerQueueWrite('gpu', { tags: ['gpu'], description: 'GPU boxes' }, [])).toEqual({
      ok: true,
      value: { id: 'gpu', tags: ['gpu'], allowedTenants: [], description: 'GPU boxes' },
    });
  });

  it('a worker group body needs a name and valid subscriptions; tokens are minted by their own endpoint', () => {
    const known = new Set(['default', 'gpu']);
    expect(
      validateWorkerGroupWrite(
        'gpu-workers',
        { subscriptions: [{ workerQueueId: 'gpu', reservedPercent: 101, mode: 'LOOSE' }], registrationTokens: [] },
        known,
      ),
    ).toEqual({
      ok: false,
      problems: [
        { path: 'registrationTokens', message: 'is not a known field of a worker group' },
        { path: 'name', message: 'is required' },
        { path: 'subscriptions[0].reservedPercent', message: 'must be a whole number from 1 to 100' },
        { path: 'subscriptions[0].mode', message: 'must be one of STRICT, ELASTIC' },
      ],
    });
    expect(validateWorkerGroupWrite('gpu-workers', { name: 'GPU', subscriptions: [{ workerQueueId: 'gpu' }] }, known)).toEqual({
      ok: true,
      value: { id: 'gpu-workers', name: 'GPU', subscriptions: [{ workerQueueId: 'gpu', mode: 'STRICT' }] },
    });
  });

  it('deleting a queue a group still subscribes to is refused (a 409 at the edge)', () => {
    expect(checkWorkerQueueDeletion('gpu', ['gpu-workers'])).toEqual({
      allowed: false,
      refusal: 'IN_USE',
      message: "worker queue 'gpu' is still subscribed by 'gpu-workers'; remove those subscriptions first",
    });
    expect(checkWorkerQueueDeletion('gpu', [])).toEqual({ allowed: true });
  });
});
