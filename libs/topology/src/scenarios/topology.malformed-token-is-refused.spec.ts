import { isWellFormedRegistrationToken } from '../index';
import { TOKEN_A, problemsOf, validate } from './setup-fixtures';

describe('topology: a registration token is at least 43 URL-safe base64 characters (256 bits)', () => {
  it('accepts 43 characters of the URL-safe alphabet', () => {
    expect(isWellFormedRegistrationToken(TOKEN_A)).toBe(true);
  });

  it.each([
    ['too short', 'a'.repeat(42)],
    ['standard base64 characters', `${'a'.repeat(42)}+/`],
    ['padding', `${'a'.repeat(43)}=`],
    ['spaces', `${'a'.repeat(20)} ${'a'.repeat(23)}`],
  ])('refuses %s', (_case, token) => {
    expect(isWellFormedRegistrationToken(token)).toBe(false);
  });

  it('reports a malformed token from config or from a file without showing it', () => {
    const setup = {
      workerGroups: [
        {
          id: 'w',
          registrationTokens: [
            { name: 'a', token: 'hunter2' },
            { name: 'b', tokenFile: '/t' },
          ],
        },
      ],
    };
    const problems = problemsOf(validate(setup, undefined, { '/t': 'correct horse battery staple' }));
    expect(problems).toEqual([
      {
        path: 'setup.workerGroups[0].registrationTokens[0].token',
        message: 'is a malformed registration token (expected 43 to 512 URL-safe base64 characters (A-Z, a-z, 0-9, - and _))',
      },
      {
        path: 'setup.workerGroups[0].registrationTokens[1].tokenFile',
        message: 'holds a malformed registration token (expected 43 to 512 URL-safe base64 characters (A-Z, a-z, 0-9, - and _))',
      },
    ]);
    expect(JSON.stringify(problems)).not.toMatch(/hunter2|horse/);
  });

  it('tells an unresolved environment placeholder apart', () => {
    const setup = { workerGroups: [{ id: 'w', registrationTokens: [{ name: 'a', token: '${LANNER_GPU_TOKEN}' }] }] };
    expect(problemsOf(validate(setup))).toEqual([
      {
        path: 'setup.workerGroups[0].registrationTokens[0].token',
        message: 'is an unresolved environment placeholder: set the variable it names',
      },
    ]);
  });
});
