import fc from 'fast-check';
import { planSetup, type ValidatedSetup } from '../index';

describe('topology: setup plan properties', () => {
  const ids = fc.uniqueArray(fc.constantFrom<string>('gpu', 'etl', 'eu', 'us', 'batch', 'critical'), { maxLength: 6 });

  it('each declared id appears once, created exactly when it does not exist yet', () => {
    fc.assert(
      fc.property(ids, ids, ids, ids, (queueIds, groupIds, existingQueues, existingGroups) => {
        const setup: ValidatedSetup = {
          workerQueues: queueIds.map((id) => ({ id, tags: [id], allowedTenants: [] })),
          workerGroups: groupIds.map((id) => ({ id: `${id}-workers`, name: id, subscriptions: [], registrationTokens: [] })),
        };
        const existingGroupIds = existingGroups.map((id) => `${id}-workers`);
        const plan = planSetup(setup, { workerQueueIds: existingQueues, workerGroupIds: existingGroupIds });
        expect(plan.steps.map((s) => s.id)).toEqual([...queueIds, ...groupIds.map((id) => `${id}-workers`)]);
        for (const step of plan.steps) {
          const exists = step.kind === 'worker-queue' ? existingQueues.includes(step.id) : existingGroupIds.includes(step.id);
          expect(step.action).toBe(exists ? 'SKIP' : 'CREATE');
        }
      }),
    );
  });
});
