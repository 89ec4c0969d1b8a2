import { validateWorkerGroupWrite } from '../lib/entity-validators';
import { problemsOf, validate } from './setup-fixtures';

describe("topology: a worker group's restart strategy is NEVER, IMMEDIATELY or AFTER_TERMINATION_GRACE_PERIOD", () => {
  const catalog = new Set(['default']);

  it('the declarative setup keeps a given one and leaves it absent otherwise (the store then applies the default)', () => {
    const result = validate({
      workerGroups: [{ id: 'once', restartStrategy: 'NEVER' }, { id: 'fast', restartStrategy: 'IMMEDIATELY' }, { id: 'plain' }],
    });
    expect(result.ok && result.setup.workerGroups.map((group) => group.restartStrategy)).toEqual([
      'NEVER',
      'IMMEDIATELY',
      undefined,
    ]);
  });

  it('the declarative setup refuses another value, naming its path', () => {
    expect(problemsOf(validate({ workerGroups: [{ id: 'w', restartStrategy: 'never' }] }))).toEqual([
      {
        path: 'setup.workerGroups[0].restartStrategy',
        message: 'must be one of NEVER, IMMEDIATELY, AFTER_TERMINATION_GRACE_PERIOD',
      },
    ]);
  });

  it('the REST body takes it and refuses another value at restartStrategy', () => {
    const taken = validateWorkerGroupWrite('gpu', { name: 'GPU', restartStrategy: 'NEVER' }, catalog);
    expect(taken.ok && taken.value.restartStrategy).toBe('NEVER');
    const refused = validateWorkerGroupWrite('gpu', { name: 'GPU', restartStrategy: 3 }, catalog);
    expect(refused.ok ? [] : refused.problems).toEqual([
      { path: 'restartStrategy', message: 'must be one of NEVER, IMMEDIATELY, AFTER_TERMINATION_GRACE_PERIOD' },
    ]);
  });
});
