import { TOKEN_A, problemsOf, validate } from './setup-fixtures';

describe('topology: one token value is declared once', () => {
  it('refuses the same value in two groups, from config and from a file, naming the first place only', () => {
    const setup = {
      workerGroups: [
        { id: 'a', registrationTokens: [{ name: 'bootstrap', token: TOKEN_A }] },
        { id: 'b', registrationTokens: [{ name: 'bootstrap', tokenFile: '/run/secrets/b' }] },
      ],
    };
    const problems = problemsOf(validate(setup, undefined, { '/run/secrets/b': `${TOKEN_A}\n` }));
    expect(problems).toEqual([
      {
        path: 'setup.workerGroups[1].registrationTokens[0]',
        message: 'repeats the token of setup.workerGroups[0].registrationTokens[0]',
      },
    ]);
    expect(JSON.stringify(problems)).not.toContain(TOKEN_A);
  });
});
