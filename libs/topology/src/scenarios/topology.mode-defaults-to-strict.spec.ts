import { problemsOf, validate } from './setup-fixtures';

describe('topology: a subscription mode is STRICT or ELASTIC, STRICT by default', () => {
  it('fills in STRICT and keeps ELASTIC', () => {
    const result = validate({
      workerGroups: [
        { id: 'w', subscriptions: [{ workerQueueId: 'default' }] },
        { id: 'v', subscriptions: [{ workerQueueId: 'default', mode: 'ELASTIC' }] },
      ],
    });
    expect(result.ok && result.setup.workerGroups.map((g) => g.subscriptions[0].mode)).toEqual(['STRICT', 'ELASTIC']);
  });

  it('refuses another mode', () => {
    expect(
      problemsOf(validate({ workerGroups: [{ id: 'w', subscriptions: [{ workerQueueId: 'default', mode: 'strict' }] }] })),
    ).toEqual([{ path: 'setup.workerGroups[0].subscriptions[0].mode', message: 'must be one of STRICT, ELASTIC' }]);
  });
});
