import { TOKEN_A, TOKEN_B, problemsOf, validate } from './setup-fixtures';

describe('topology: a token already registered on another group is refused', () => {
  const setup = { workerGroups: [{ id: 'gpu-workers', registrationTokens: [{ name: 'bootstrap', token: TOKEN_A }] }] };

  it('names the group that owns it', () => {
    expect(problemsOf(validate(setup, undefined, {}, { [TOKEN_A]: 'etl-workers' }))).toEqual([
      { path: 'setup.workerGroups[0].registrationTokens[0]', message: "is already registered on the worker group 'etl-workers'" },
    ]);
  });

  it('an unknown token is fine', () => {
    expect(validate(setup, undefined, {}, { [TOKEN_B]: 'etl-workers' }).ok).toBe(true);
  });

  it('a group that already exists is skipped whole, so its tokens are not checked against the registry', () => {
    const existing = { workerQueues: [], workerGroupIds: ['gpu-workers'] };
    expect(validate(setup, existing, {}, { [TOKEN_A]: 'gpu-workers' }).ok).toBe(true);
  });
});
