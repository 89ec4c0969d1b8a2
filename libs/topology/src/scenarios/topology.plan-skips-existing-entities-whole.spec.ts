import { planSetup } from '../index';
import { TOKEN_A, validate } from './setup-fixtures';

describe('topology: the setup is a seed: an entity whose id exists is skipped whole', () => {
  const declared = validate(
    {
      workerQueues: [
        { id: 'gpu', tags: ['gpu', 'linux'], allowedTenants: ['acme'] },
        { id: 'etl', tags: ['etl'] },
      ],
      workerGroups: [
        {
          id: 'gpu-workers',
          name: 'GPU workers',
          subscriptions: [{ workerQueueId: 'gpu', reservedPercent: 70 }, { workerQueueId: 'etl' }],
          registrationTokens: [{ name: 'bootstrap', tokenFile: '/run/secrets/gpu' }],
        },
        { id: 'etl-workers', subscriptions: [{ workerQueueId: 'etl', mode: 'ELASTIC' }] },
      ],
    },
    undefined,
    { '/run/secrets/gpu': TOKEN_A },
  );
  if (!declared.ok) throw new Error('fixture must be valid');

  it('creates everything on an empty repository, queues before groups', () => {
    const plan = planSetup(declared.setup, { workerQueueIds: [], workerGroupIds: [] });
    expect(plan.steps.map((s) => `${s.action} ${s.kind} ${s.id}`)).toEqual([
      'CREATE worker-queue gpu',
      'CREATE worker-queue etl',
      'CREATE worker-group gpu-workers',
      'CREATE worker-group etl-workers',
    ]);
    expect(plan.steps.map((s) => s.logLine)).toEqual([
      "created worker queue 'gpu' (tags gpu, linux; tenants acme)",
      "created worker queue 'etl' (tags etl; all tenants)",
      "created worker group 'gpu-workers' with 2 subscriptions (gpu 70% STRICT, etl STRICT) and 1 registration token ('bootstrap' from file /run/secrets/gpu)",
      "created worker group 'etl-workers' with 1 subscription (etl ELASTIC) and 0 registration tokens",
    ]);
    expect(plan.summary).toBe('setup: worker queues 2 created, 0 skipped; worker groups 2 created, 0 skipped');
  });

  it('skips what exists, with one line each, and carries nothing of a skipped entity', () => {
    const plan = planSetup(declared.setup, { workerQueueIds: ['gpu'], workerGroupIds: ['gpu-workers'] });
    expect(plan.steps).toEqual([
      { action: 'SKIP', kind: 'worker-queue', id: 'gpu', logLine: "skipped worker queue 'gpu': it already exists" },
      expect.objectContaining({ action: 'CREATE', kind: 'worker-queue', id: 'etl' }),
      {
        action: 'SKIP',
        kind: 'worker-group',
        id: 'gpu-workers',
        logLine: "skipped worker group 'gpu-workers': it already exists",
      },
      expect.objectContaining({ action: 'CREATE', kind: 'worker-group', id: 'etl-workers' }),
    ]);
    expect(plan.summary).toBe('setup: worker queues 1 created, 1 skipped; worker groups 1 created, 1 skipped');
  });

  it('re-applying after everything was created changes nothing', () => {
    const plan = planSetup(declared.setup, { workerQueueIds: ['gpu', 'etl'], workerGroupIds: ['gpu-workers', 'etl-workers'] });
    expect(plan.steps.every((s) => s.action === 'SKIP')).toBe(true);
  });
});
