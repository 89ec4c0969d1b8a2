import { validateSubscriptionWrite, validateWorkerGroupWrite } from '../index';
import { problemsOf, validate } from './setup-fixtures';

describe('topology: reservedPercent is a whole number from 1 to 100', () => {
  it.each([0, 101, -5, 12.5, '50'])('refuses %j', (reservedPercent) => {
    const setup = { workerGroups: [{ id: 'w', subscriptions: [{ workerQueueId: 'default', reservedPercent }] }] };
    expect(problemsOf(validate(setup))).toEqual([
      { path: 'setup.workerGroups[0].subscriptions[0].reservedPercent', message: 'must be a whole number from 1 to 100' },
    ]);
  });

  it.each([1, 100])('accepts %j', (reservedPercent) => {
    expect(validate({ workerGroups: [{ id: 'w', subscriptions: [{ workerQueueId: 'default', reservedPercent }] }] }).ok).toBe(
      true,
    );
  });

  it('is optional', () => {
    expect(validate({ workerGroups: [{ id: 'w', subscriptions: [{ workerQueueId: 'default' }] }] }).ok).toBe(true);
  });

  it('the REST API reports it at subscriptions[0].reservedPercent, or reservedPercent for a single subscription', () => {
    const known = new Set(['default']);
    expect(
      validateWorkerGroupWrite('w', { name: 'W', subscriptions: [{ workerQueueId: 'default', reservedPercent: 0 }] }, known),
    ).toEqual({
      ok: false,
      problems: [{ path: 'subscriptions[0].reservedPercent', message: 'must be a whole number from 1 to 100' }],
    });
    expect(validateSubscriptionWrite('default', { reservedPercent: 120 }, [], known)).toEqual({
      ok: false,
      problems: [{ path: 'reservedPercent', message: 'must be a whole number from 1 to 100' }],
    });
  });
});
