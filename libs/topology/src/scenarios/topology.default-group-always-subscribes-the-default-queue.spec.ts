import { checkSubscriptionDeletion, checkWorkerGroupDeletion, planSetup, withDefaultSubscription } from '../index';
import { TOKEN_A, existingQueues, validate } from './setup-fixtures';

describe("topology: the 'default' group always exists and always subscribes to the 'default' queue", () => {
  it('a declared default group gets the default subscription alongside the declared ones', () => {
    const declared = validate(
      {
        workerGroups: [
          {
            id: 'default',
            name: 'Shared workers',
            subscriptions: [{ workerQueueId: 'etl', reservedPercent: 20 }],
            registrationTokens: [{ name: 'bootstrap', token: TOKEN_A }],
          },
        ],
      },
      existingQueues({ id: 'etl', tags: ['etl'], allowedTenants: [] }),
    );
    if (!declared.ok) throw new Error('fixture must be valid');
    const [step] = planSetup(declared.setup, { workerQueueIds: ['etl'], workerGroupIds: [] }).steps;
    expect(step.action === 'CREATE' && step.kind === 'worker-group' && step.group.subscriptions).toEqual([
      { workerQueueId: 'default', mode: 'STRICT' },
      { workerQueueId: 'etl', reservedPercent: 20, mode: 'STRICT' },
    ]);
  });

  it('is not added twice, and only to the default group', () => {
    const own = [{ workerQueueId: 'default', reservedPercent: 10, mode: 'ELASTIC' as const }];
    expect(withDefaultSubscription('default', own)).toEqual(own);
    expect(withDefaultSubscription('gpu-workers', [])).toEqual([]);
  });

  it('cannot be deleted, nor its default subscription', () => {
    expect(checkWorkerGroupDeletion('default')).toMatchObject({ allowed: false, refusal: 'RESERVED' });
    expect(checkSubscriptionDeletion('default', 'default')).toMatchObject({ allowed: false, refusal: 'RESERVED' });
    expect(checkWorkerGroupDeletion('gpu-workers')).toEqual({ allowed: true });
  });
});
