import { validateWorkerGroupWrite } from '../index';
import { existingQueues, problemsOf, validate } from './setup-fixtures';

describe('topology: a subscription must reference a known worker queue', () => {
  it('names the subscription and the unknown queue (WORKERS.md example)', () => {
    const setup = {
      workerQueues: [{ id: 'gpu', tags: ['gpu'] }],
      workerGroups: [{ id: 'gpu-workers', subscriptions: [{ workerQueueId: 'gpu' }, { workerQueueId: 'etl' }] }],
    };
    expect(problemsOf(validate(setup))).toEqual([
      { path: 'setup.workerGroups[0].subscriptions[1]', message: "references the unknown worker queue 'etl'" },
    ]);
  });

  it('a queue declared in the same setup, an existing queue and the default queue are known', () => {
    const setup = {
      workerQueues: [{ id: 'gpu', tags: ['gpu'] }],
      workerGroups: [
        { id: 'w', subscriptions: [{ workerQueueId: 'gpu' }, { workerQueueId: 'etl' }, { workerQueueId: 'default' }] },
      ],
    };
    expect(validate(setup, existingQueues({ id: 'etl', tags: ['etl'], allowedTenants: [] })).ok).toBe(true);
  });

  it("no group may subscribe to the 'system' queue", () => {
    expect(problemsOf(validate({ workerGroups: [{ id: 'w', subscriptions: [{ workerQueueId: 'system' }] }] }))).toEqual([
      {
        path: 'setup.workerGroups[0].subscriptions[0]',
        message: "cannot subscribe to the 'system' worker queue: it is served only by the in-process system worker",
      },
    ]);
  });

  it('the REST API reports it with a JSON path into the body', () => {
    expect(validateWorkerGroupWrite('w', { name: 'W', subscriptions: [{ workerQueueId: 'etl' }] }, new Set(['default']))).toEqual(
      {
        ok: false,
        problems: [{ path: 'subscriptions[0]', message: "references the unknown worker queue 'etl'" }],
      },
    );
  });

  it('a group subscribing twice to one queue is refused', () => {
    const setup = { workerGroups: [{ id: 'w', subscriptions: [{ workerQueueId: 'default' }, { workerQueueId: 'default' }] }] };
    expect(problemsOf(validate(setup))).toEqual([
      {
        path: 'setup.workerGroups[0].subscriptions[1]',
        message: "subscribes to the worker queue 'default' again (see setup.workerGroups[0].subscriptions[0])",
      },
    ]);
  });
});
