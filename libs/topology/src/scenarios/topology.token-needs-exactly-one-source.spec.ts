import { TOKEN_A, problemsOf, validate } from './setup-fixtures';

describe('topology: a registration token declares exactly one of tokenFile or token', () => {
  const group = (token: Record<string, unknown>) => ({
    workerGroups: [{ id: 'w', registrationTokens: [{ name: 'bootstrap', ...token }] }],
  });

  it('refuses neither', () => {
    expect(problemsOf(validate(group({})))).toEqual([
      { path: 'setup.workerGroups[0].registrationTokens[0]', message: 'needs exactly one of tokenFile or token' },
    ]);
  });

  it('refuses both', () => {
    expect(
      problemsOf(validate(group({ tokenFile: '/run/secrets/w', token: TOKEN_A }), undefined, { '/run/secrets/w': TOKEN_A })),
    ).toEqual([
      { path: 'setup.workerGroups[0].registrationTokens[0]', message: 'sets both tokenFile and token: exactly one is allowed' },
    ]);
  });

  it('accepts either one', () => {
    expect(validate(group({ token: TOKEN_A })).ok).toBe(true);
    expect(validate(group({ tokenFile: '/run/secrets/w' }), undefined, { '/run/secrets/w': `${TOKEN_A}\n` }).ok).toBe(true);
  });

  it('needs a token name, unique within the group', () => {
    const setup = {
      workerGroups: [
        {
          id: 'w',
          registrationTokens: [
            { token: TOKEN_A },
            { name: 'a', token: TOKEN_A.replace('A', 'B') },
            { name: 'a', token: TOKEN_A.replace('A', 'C') },
          ],
        },
      ],
    };
    expect(problemsOf(validate(setup))).toEqual([
      { path: 'setup.workerGroups[0].registrationTokens[0].name', message: 'is required' },
      {
        path: 'setup.workerGroups[0].registrationTokens[2].name',
        message: "repeats the token name 'a' of setup.workerGroups[0].registrationTokens[1]",
      },
    ]);
  });
});
