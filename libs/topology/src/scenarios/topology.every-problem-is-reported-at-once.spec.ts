import { InvalidTopology, formatProblems } from '../index';
import { problemsOf, validate } from './setup-fixtures';

describe('topology: the whole declaration is validated at once (all-or-nothing)', () => {
  const setup = {
    workerQueues: [
      { id: 'gpu', tags: [] },
      { id: 'Etl', tags: ['etl'] },
    ],
    workerGroups: [
      {
        id: 'gpu-workers',
        'worker-queue-id': 'gpu',
        subscriptions: [
          { workerQueueId: 'gpu', reservedPercent: 70 },
          { workerQueueId: 'etl', reservedPercent: 40 },
        ],
        registrationTokens: [{ name: 'bootstrap', tokenFile: '/missing' }],
      },
    ],
  };

  it('returns every problem with its path, and nothing to write', () => {
    const result = validate(setup);
    expect(result.ok).toBe(false);
    expect(problemsOf(result)).toEqual([
      { path: 'setup.workerQueues[0].tags', message: 'must hold at least one tag' },
      {
        path: 'setup.workerQueues[1].id',
        message:
          "'Etl' is not an RFC 1123 label (lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters)",
      },
      { path: 'setup.workerGroups[0].worker-queue-id', message: 'is not a known field of a worker group' },
      { path: 'setup.workerGroups[0].subscriptions[1]', message: "references the unknown worker queue 'etl'" },
      { path: 'setup.workerGroups[0].subscriptions', message: 'reserved percentages add up to 110, above 100' },
      { path: 'setup.workerGroups[0].registrationTokens[0].tokenFile', message: 'names a file that cannot be read (ENOENT)' },
    ]);
  });

  it('formats one actionable line per problem for the start-up failure', () => {
    const error = new InvalidTopology(problemsOf(validate(setup)));
    expect(error.message).toContain("setup.workerGroups[0].subscriptions[1] references the unknown worker queue 'etl'");
    expect(formatProblems(error.problems).split('\n')).toHaveLength(6);
  });

  it('an absent setup section is valid and declares nothing', () => {
    expect(validate(undefined)).toEqual({ ok: true, setup: { workerQueues: [], workerGroups: [] } });
  });

  it('a setup section that is not an object is refused', () => {
    expect(problemsOf(validate(['gpu']))).toEqual([
      { path: 'setup', message: 'must be an object describing the declarative setup' },
    ]);
  });
});
