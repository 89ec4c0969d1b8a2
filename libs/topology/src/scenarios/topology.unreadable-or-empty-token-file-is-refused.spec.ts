import { problemsOf, validate } from './setup-fixtures';

describe('topology: a token file must be readable and not empty', () => {
  const setup = {
    workerGroups: [
      {
        id: 'w',
        registrationTokens: [
          { name: 'missing', tokenFile: '/run/secrets/missing' },
          { name: 'empty', tokenFile: '/run/secrets/empty' },
          { name: 'blank', tokenFile: '/run/secrets/blank' },
        ],
      },
    ],
  };

  it('reports the unreadable file with the reader reason, and the empty ones', () => {
    expect(problemsOf(validate(setup, undefined, { '/run/secrets/empty': '', '/run/secrets/blank': '\n' }))).toEqual([
      { path: 'setup.workerGroups[0].registrationTokens[0].tokenFile', message: 'names a file that cannot be read (ENOENT)' },
      { path: 'setup.workerGroups[0].registrationTokens[1].tokenFile', message: 'names an empty file' },
      { path: 'setup.workerGroups[0].registrationTokens[2].tokenFile', message: 'names an empty file' },
    ]);
  });
});
