import { type AccessSetupPorts, validateAccessSetup } from './access-setup';

const TOKEN = 't'.repeat(43);
const PASSWORD = 'correct horse battery staple';

function ports(files: Record<string, string> = {}, env: Record<string, string> = {}, existing: string[] = []): AccessSetupPorts {
  return {
    files: {
      read: (path) => (path in files ? { readable: true, content: files[path] } : { readable: false, reason: 'ENOENT' }),
    },
    env,
    existingTenantIds: existing,
    passwordProblem: (password) => (password.length < 12 ? 'must be 12 to 256 characters' : undefined),
  };
}

describe('access setup: tenants, users and API tokens', () => {
  it('reads tenants, users with their password from the environment or a file, and tokens from a file', () => {
    const result = validateAccessSetup(
      {
        tenants: [{ id: 'team-a', name: 'Team A' }, { id: 'team-b' }],
        users: [
          { username: 'alice', tenant: 'team-a', role: 'admin', passwordFile: 'secrets/alice' },
          { username: 'root', role: 'admin', instanceAdmin: true, passwordEnv: 'ROOT_PASSWORD' },
        ],
        apiTokens: [{ tenant: 'team-b', name: 'ci', role: 'developer', tokenFile: 'secrets/ci' }],
      },
      ports({ 'secrets/alice': `${PASSWORD}\n`, 'secrets/ci': `${TOKEN}\n` }, { ROOT_PASSWORD: 'root password 123' }),
    );
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.setup.tenants).toEqual([
      { id: 'team-a', name: 'Team A' },
      { id: 'team-b', name: 'team-b' },
    ]);
    expect(result.setup.users.map(({ password, ...user }) => ({ ...user, password: password.reveal() }))).toEqual([
      {
        username: 'alice',
        tenantId: 'team-a',
        role: 'admin',
        instanceAdmin: false,
        password: PASSWORD,
        passwordSource: { kind: 'file', path: 'secrets/alice' },
      },
      {
        username: 'root',
        tenantId: 'main',
        role: 'admin',
        instanceAdmin: true,
        password: 'root password 123',
        passwordSource: { kind: 'env', name: 'ROOT_PASSWORD' },
      },
    ]);
    expect(result.setup.apiTokens[0].secret.reveal()).toBe(TOKEN);
    expect(JSON.stringify(result.setup)).not.toContain(PASSWORD);
    expect(JSON.stringify(result.setup)).not.toContain(TOKEN);
    expect(String(result.setup.users[0].password)).toBe('[redacted password]');
  });

  it('refuses a password written in the file, whatever else is right', () => {
    const result = validateAccessSetup({ users: [{ username: 'bob', role: 'viewer', password: PASSWORD }] }, ports());
    expect(result).toEqual({
      ok: false,
      problems: [
        {
          path: 'setup.users[0].password',
          message: 'is not allowed: a password is never written in the setup file (use passwordEnv or passwordFile)',
        },
        { path: 'setup.users[0]', message: 'needs exactly one of passwordEnv (an environment variable) or passwordFile' },
      ],
    });
  });

  it('reports every problem with its path at once, and no secret in any message', () => {
    const short = 'too-short';
    const result = validateAccessSetup(
      {
        tenants: [{ id: 'Team' }, { id: 'instance' }, { id: 'ok' }, { id: 'ok' }],
        users: [
          { username: 'carol', tenant: 'nowhere', role: 'owner', passwordEnv: 'UNSET' },
          { username: 'dave', role: 'viewer', passwordFile: 'short' },
          { username: 'erin', role: 'viewer', passwordFile: 'missing', passwordEnv: 'X' },
          { username: 'frank', role: 'viewer', passwordFile: 'missing' },
        ],
        apiTokens: [
          { tenant: 'nowhere', name: 'ci', role: 'viewer', tokenFile: 'short' },
          { tenant: 'ok', name: 'two', role: 'viewer', token: TOKEN, tokenFile: 'x' },
        ],
      },
      ports({ short: short }),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      {
        path: 'setup.tenants[0].id',
        message: 'must be 1 to 63 lowercase letters, digits, "_" or "-", starting with a letter or digit',
      },
      { path: 'setup.tenants[1].id', message: 'is reserved (instance and auth are API paths)' },
      { path: 'setup.tenants[3].id', message: "declares the tenant 'ok' twice" },
      {
        path: 'setup.users[0].tenant',
        message: "names the unknown tenant 'nowhere': declare it under setup.tenants or create it first",
      },
      { path: 'setup.users[0].role', message: 'must be one of viewer, developer, admin' },
      { path: 'setup.users[0].passwordEnv', message: 'names the environment variable UNSET, which is not set' },
      { path: 'setup.users[1].passwordFile', message: 'gives a password that must be 12 to 256 characters' },
      { path: 'setup.users[2]', message: 'sets both passwordEnv and passwordFile: exactly one is allowed' },
      { path: 'setup.users[3].passwordFile', message: 'names a file that cannot be read (ENOENT)' },
      {
        path: 'setup.apiTokens[0].tenant',
        message: "names the unknown tenant 'nowhere': declare it under setup.tenants or create it first",
      },
      {
        path: 'setup.apiTokens[0].tokenFile',
        message: 'names a file that must hold 43 to 512 URL-safe base64 characters (A-Z, a-z, 0-9, - and _)',
      },
      { path: 'setup.apiTokens[1]', message: 'sets both token and tokenFile: exactly one is allowed' },
    ]);
    expect(JSON.stringify(result.problems)).not.toContain(short);
  });

  it('takes the tenants that exist already as known', () => {
    const result = validateAccessSetup(
      { users: [{ username: 'gina', tenant: 'legacy', role: 'developer', passwordEnv: 'P' }] },
      ports({}, { P: PASSWORD }, ['legacy']),
    );
    expect(result.ok).toBe(true);
  });
});
