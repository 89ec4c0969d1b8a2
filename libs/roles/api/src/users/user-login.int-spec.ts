import { hashToken } from '@lanner/auth';
import { startApiForSpec, type ApiSpecFixture } from '../testing/api-spec-fixture';

// Users and login through the real api role on the real PostgreSQL (and Kafka, which the role needs):
// the first admin user, login, refresh rotation, reuse detection, lock-out, logout, password change,
// and the instance users routes.

const FIRST_ADMIN = { username: 'admin', password: 'first-admin-password-1234' };
const MAX_FAILED_LOGINS = 3;

let api: ApiSpecFixture;

interface Answer {
  readonly status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are inspected field by field
  readonly json: any;
  readonly headers: Headers;
}

async function call(
  method: string,
  path: string,
  options: { token?: string | null; body?: unknown; cookie?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? api.adminToken : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.cookie !== undefined) headers.cookie = options.cookie;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const response = await fetch(`${api.baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  return { status: response.status, json: text === '' ? undefined : JSON.parse(text), headers: response.headers };
}

const login = (username: string, password: string) =>
  call('POST', '/api/v1/auth/login', { token: null, body: { username, password } });

/** The refresh token the answer set as a cookie, and the cookie's attributes. */
function refreshCookieOf(answer: Answer): { value: string; attributes: string } {
  const header = answer.headers.get('set-cookie') ?? '';
  const match = /^lanner_refresh=([^;]*);(.*)$/.exec(header);
  if (match === null) throw new Error(`no refresh cookie in ${JSON.stringify(header)}`);
  return { value: match[1], attributes: match[2] };
}

const refresh = (value: string) => call('POST', '/api/v1/auth/refresh', { token: null, cookie: `lanner_refresh=${value}` });

async function createUser(username: string, role: string, password = 'a-long-enough-password') {
  const created = await call('POST', '/api/v1/instance/users', { body: { username, password, role } });
  expect(created.status).toBe(201);
}

beforeAll(async () => {
  api = await startApiForSpec({
    users: {
      signingKey: 'user-login-spec-signing-key-of-at-least-32-bytes',
      firstAdmin: FIRST_ADMIN,
      maxFailedLogins: MAX_FAILED_LOGINS,
      lockoutS: 600,
    },
  });
}, 120_000);

afterAll(async () => {
  await api?.close();
}, 60_000);

describe('login', () => {
  it('lets the first admin user log in, answers an access JWT and sets the refresh token as an HttpOnly, Secure, SameSite=Strict cookie', async () => {
    const answer = await login(FIRST_ADMIN.username, FIRST_ADMIN.password);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      tokenType: 'Bearer',
      user: { username: 'admin', tenant: 'main', role: 'admin', instanceAdmin: true },
    });
    const cookie = refreshCookieOf(answer);
    expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookie.attributes).toContain('HttpOnly');
    expect(cookie.attributes).toContain('Secure');
    expect(cookie.attributes).toContain('SameSite=Strict');
    expect(cookie.attributes).toContain('Path=/api/v1/auth');

    // The JWT is a bearer for the API, with the user's rights.
    const me = await call('GET', '/api/v1/auth/me', { token: answer.json.accessToken });
    expect(me.json).toEqual({ username: 'admin', tenant: 'main', role: 'admin', namespace: null, instanceAdmin: true });
    expect((await call('GET', '/api/v1/instance/users', { token: answer.json.accessToken })).status).toBe(200);
  });

  it('stores passwords as argon2id hashes and never answers one', async () => {
    await createUser('hash-check', 'viewer', 'hash-check-password');
    const stored = await api.repositories.users.findForLogin('hash-check');
    expect(stored?.passwordHash).toMatch(/^\$argon2id\$/);
    const listed = await call('GET', '/api/v1/instance/users');
    expect(listed.json.find((user: { username: string }) => user.username === 'hash-check')).toMatchObject({
      role: 'viewer',
      tenant: 'main',
    });
    expect(JSON.stringify(listed.json)).not.toContain('argon2');
    expect(JSON.stringify(listed.json)).not.toContain('hash-check-password');
  });

  it('refuses a wrong password and an unknown user with the same 401', async () => {
    await createUser('wrong-password', 'viewer');
    const wrong = await login('wrong-password', 'not-the-password');
    const unknown = await login('nobody-at-all', 'not-the-password');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.json.detail).toBe('The username or the password is wrong');
    expect(unknown.json.detail).toBe(wrong.json.detail);
  });

  it('gives a user the rights of its role only', async () => {
    await createUser('a-viewer', 'viewer');
    const { accessToken } = (await login('a-viewer', 'a-long-enough-password')).json;
    expect((await call('GET', '/api/v1/main/flows/search', { token: accessToken })).status).toBe(200);
    const write = await call('POST', '/api/v1/main/api-tokens', { token: accessToken, body: { name: 'x', role: 'viewer' } });
    expect(write.status).toBe(403);
    expect(write.json.detail).toContain("'api-token:write'");
    expect((await call('GET', '/api/v1/instance/users', { token: accessToken })).status).toBe(403);
  });

  it('locks a user out after repeated failures with a 429 naming until when, even for the right password', async () => {
    await createUser('locked-out', 'developer');
    for (let attempt = 1; attempt < MAX_FAILED_LOGINS; attempt++)
      expect((await login('locked-out', 'guess-number-' + attempt)).status).toBe(401);
    const locking = await login('locked-out', 'the-last-guess');
    expect(locking.status).toBe(429);
    expect(locking.json.detail).toMatch(/^Too many failed logins: this user is locked until \d{4}-\d\d-\d\dT/);
    expect(Number(locking.headers.get('retry-after'))).toBeGreaterThan(500);
    const right = await login('locked-out', 'a-long-enough-password');
    expect(right.status).toBe(429);
    expect(right.headers.get('set-cookie')).toBeNull();
    const listed = await call('GET', '/api/v1/instance/users');
    expect(listed.json.find((user: { username: string }) => user.username === 'locked-out').lockedUntil).not.toBeNull();
  });

  it('counts failures from the last success: a right password in between starts over', async () => {
    await createUser('starts-over', 'viewer');
    for (let round = 0; round < 2; round++) {
      for (let attempt = 1; attempt < MAX_FAILED_LOGINS; attempt++)
        expect((await login('starts-over', 'wrong-guess')).status).toBe(401);
      expect((await login('starts-over', 'a-long-enough-password')).status).toBe(200);
    }
  });
});

describe('refresh', () => {
  it('rotates the refresh token: the new one works, and the answer is a new access JWT', async () => {
    const first = refreshCookieOf(await login(FIRST_ADMIN.username, FIRST_ADMIN.password)).value;
    const refreshed = await refresh(first);
    expect(refreshed.status).toBe(200);
    const second = refreshCookieOf(refreshed).value;
    expect(second).not.toBe(first);
    expect((await call('GET', '/api/v1/auth/me', { token: refreshed.json.accessToken })).json.username).toBe('admin');
    expect((await refresh(second)).status).toBe(200);
  });

  it('revokes the whole family when a used refresh token comes back, the newest token included', async () => {
    const stolen = refreshCookieOf(await login(FIRST_ADMIN.username, FIRST_ADMIN.password)).value;
    const legitimate = refreshCookieOf(await refresh(stolen)).value;
    const reuse = await refresh(stolen);
    expect(reuse.status).toBe(401);
    expect(reuse.json.detail).toBe('The session is unknown, expired or ended; log in again');
    expect(refreshCookieOf(reuse).attributes).toContain('Max-Age=0');
    expect((await refresh(legitimate)).status).toBe(401);
    // The family is revoked in the database, not only refused.
    const familyId = await api.repositories.users.refreshFamilyOf(hashToken(legitimate));
    expect(familyId).not.toBeNull();
    expect(await api.repositories.users.revokeRefreshFamily(familyId as string, new Date())).toBe(0);
  });

  it('refuses a missing or unknown refresh cookie', async () => {
    const missing = await call('POST', '/api/v1/auth/refresh', { token: null });
    expect(missing.status).toBe(401);
    expect(missing.json.detail).toContain('lanner_refresh');
    expect((await refresh('x'.repeat(43))).status).toBe(401);
  });

  it('ends at logout: the refresh token is refused afterwards', async () => {
    const value = refreshCookieOf(await login(FIRST_ADMIN.username, FIRST_ADMIN.password)).value;
    const out = await call('POST', '/api/v1/auth/logout', { token: null, cookie: `lanner_refresh=${value}` });
    expect(out.status).toBe(204);
    expect(refreshCookieOf(out).attributes).toContain('Max-Age=0');
    expect((await refresh(value)).status).toBe(401);
  });
});

describe('users', () => {
  it('change their password with the current one, which ends their logins', async () => {
    await createUser('changer', 'developer', 'the-old-password');
    const session = await login('changer', 'the-old-password');
    const cookie = refreshCookieOf(session).value;
    const token = session.json.accessToken;
    const wrong = await call('POST', '/api/v1/auth/password', {
      token,
      body: { currentPassword: 'not-it-at-all', newPassword: 'the-new-password' },
    });
    expect(wrong.status).toBe(401);
    const short = await call('POST', '/api/v1/auth/password', {
      token,
      body: { currentPassword: 'the-old-password', newPassword: 'short' },
    });
    expect(short.status).toBe(400);
    expect(short.json.errors).toEqual([{ path: 'newPassword', message: 'newPassword must be 12 to 256 characters' }]);
    const changed = await call('POST', '/api/v1/auth/password', {
      token,
      body: { currentPassword: 'the-old-password', newPassword: 'the-new-password' },
    });
    expect(changed.status).toBe(204);
    expect((await refresh(cookie)).status).toBe(401);
    expect((await login('changer', 'the-old-password')).status).toBe(401);
    expect((await login('changer', 'the-new-password')).status).toBe(200);
    // An API token has no password to change.
    expect((await call('POST', '/api/v1/auth/password', { body: { currentPassword: 'x', newPassword: 'y' } })).status).toBe(401);
  });

  it('are managed by instance admins: a duplicate is 409, a weak password 400, an update changes the role at once, a deletion ends access at once', async () => {
    await createUser('managed', 'viewer');
    expect(
      (
        await call('POST', '/api/v1/instance/users', {
          body: { username: 'managed', password: 'a-long-enough-password', role: 'viewer' },
        })
      ).status,
    ).toBe(409);
    const weak = await call('POST', '/api/v1/instance/users', { body: { username: 'weak', password: 'short', role: 'viewer' } });
    expect(weak.status).toBe(400);
    expect(weak.json.errors[0].path).toBe('password');
    expect(JSON.stringify(weak.json)).not.toContain('"short"');

    const { accessToken } = (await login('managed', 'a-long-enough-password')).json;
    const listTokens = () => call('GET', '/api/v1/main/api-tokens', { token: accessToken });
    expect((await listTokens()).status).toBe(403);
    const updated = await call('PUT', '/api/v1/instance/users/managed', { body: { role: 'admin' } });
    expect(updated.status).toBe(200);
    expect(updated.json.role).toBe('admin');
    expect((await call('GET', '/api/v1/auth/me', { token: accessToken })).json.role).toBe('admin');
    expect((await listTokens()).status).toBe(200);

    expect((await call('DELETE', '/api/v1/instance/users/managed')).status).toBe(204);
    expect((await call('GET', '/api/v1/auth/me', { token: accessToken })).status).toBe(401);
    expect((await call('DELETE', '/api/v1/instance/users/managed')).status).toBe(404);
    expect((await call('PUT', '/api/v1/instance/users/managed', { body: { role: 'viewer' } })).status).toBe(404);
  });

  it('are bound to a tenant that was created, the 400 naming the tenant', async () => {
    const unknown = await call('POST', '/api/v1/instance/users', {
      body: { username: 'nomad', password: 'a-long-enough-password', role: 'viewer', tenant: 'nowhere' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.errors).toEqual([
      { path: 'tenant', message: "names the unknown tenant 'nowhere': create it first (POST /api/v1/instance/tenants)" },
    ]);
    expect((await call('GET', '/api/v1/instance/users')).json.map((u: { username: string }) => u.username)).not.toContain(
      'nomad',
    );
    await createUser('settler', 'viewer');
    const moved = await call('PUT', '/api/v1/instance/users/settler', { body: { tenant: 'nowhere' } });
    expect(moved.status).toBe(400);
    expect(moved.json.errors[0].path).toBe('tenant');
    expect((await call('POST', '/api/v1/instance/tenants', { body: { id: 'elsewhere' } })).status).toBe(201);
    const settled = await call('PUT', '/api/v1/instance/users/settler', { body: { tenant: 'elsewhere' } });
    expect(settled.json.tenant).toBe('elsewhere');
  });
});
