import { validateSubscriptionWrite } from '../index';
import { existingQueues, problemsOf, validate } from './setup-fixtures';

describe("topology: the reserved percentages of a group's subscriptions add up to at most 100", () => {
  const existing = existingQueues(
    { id: 'critical', tags: ['critical'], allowedTenants: [] },
    { id: 'batch', tags: ['batch'], allowedTenants: [] },
  );

  it('refuses a group above 100, on the subscription list', () => {
    const setup = {
      workerGroups: [
        {
          id: 'w',
          subscriptions: [
            { workerQueueId: 'critical', reservedPercent: 70 },
            { workerQueueId: 'batch', reservedPercent: 40 },
            { workerQueueId: 'default' },
          ],
        },
      ],
    };
    expect(problemsOf(validate(setup, existing))).toEqual([
      { path: 'setup.workerGroups[0].subscriptions', message: 'reserved percentages add up to 110, above 100' },
    ]);
  });

  it('accepts exactly 100', () => {
    const subscriptions = [
      { workerQueueId: 'critical', reservedPercent: 50 },
      { workerQueueId: 'batch', reservedPercent: 50 },
    ];
    expect(validate({ workerGroups: [{ id: 'w', subscriptions }] }, existing).ok).toBe(true);
  });

  it('the sum is per group: two groups at 80 each are fine', () => {
    const groups = ['a', 'b'].map((id) => ({ id, subscriptions: [{ workerQueueId: 'critical', reservedPercent: 80 }] }));
    expect(validate({ workerGroups: groups }, existing).ok).toBe(true);
  });

  it("a REST subscription update counts the group's other subscriptions, not the one it replaces", () => {
    const current = [
      { workerQueueId: 'critical', reservedPercent: 60, mode: 'STRICT' as const },
      { workerQueueId: 'batch', reservedPercent: 30, mode: 'STRICT' as const },
    ];
    const known = new Set(['critical', 'batch', 'default']);
    expect(validateSubscriptionWrite('batch', { reservedPercent: 40 }, current, known).ok).toBe(true);
    expect(validateSubscriptionWrite('batch', { reservedPercent: 45 }, current, known)).toEqual({
      ok: false,
      problems: [{ path: 'reservedPercent', message: "brings the group's reserved percentages to 105, above 100" }],
    });
  });
});
