import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { StoredCredentials } from './credentials-file';
import { AuthRefused, AuthUnavailable, CredentialsLost, WorkerCredentials, type AuthCalls } from './worker-credentials';

const endpoint = { host: '10.0.0.1', port: 9090 };
const SECOND = 1000;

/** WorkerAuthService as a table of answers, counting calls and checking that none overlap. */
function fakeCalls(now: () => number, accessTtlMs = 300 * SECOND) {
  let serial = 0;
  let inFlight = 0;
  const log: string[] = [];
  const behaviour = { refresh: 'ok' as 'ok' | 'refused' | 'unavailable', register: 'ok' as 'ok' | 'refused' };
  const issue = (workerId: string): StoredCredentials => {
    serial += 1;
    return {
      workerId,
      workerGroupId: 'gpu',
      accessToken: `access-${serial}`,
      accessExpiresAt: new Date(now() + accessTtlMs),
      refreshToken: `refresh-${serial}`,
      refreshExpiresAt: new Date(now() + 3600 * SECOND),
    };
  };
  const step = async <T>(what: string, answer: () => T): Promise<T> => {
    log.push(what);
    inFlight += 1;
    if (inFlight > 1) throw new Error('two auth calls at once');
    await new Promise((resolve) => setTimeout(resolve, 5));
    inFlight -= 1;
    return answer();
  };
  const calls: AuthCalls = {
    register: (_endpoint, token, name) =>
      step(`register ${token} ${name}`, () => {
        if (behaviour.register === 'refused') throw new AuthRefused('Register: UNAUTHENTICATED');
        return issue('w-1');
      }),
    refresh: (_endpoint, refreshToken) =>
      step(`refresh ${refreshToken}`, () => {
        if (behaviour.refresh === 'refused') throw new AuthRefused('Refresh: UNAUTHENTICATED');
        if (behaviour.refresh === 'unavailable') throw new AuthUnavailable('Refresh: UNAVAILABLE');
        return issue('w-1');
      }),
  };
  return { calls, log, behaviour };
}

describe('worker credentials', () => {
  let dir: string;
  let now: number;
  const clock = () => now;
  const logger = pino({ level: 'silent' });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lanner-credentials-'));
    now = Date.parse('2026-01-01T00:00:00Z');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const make = (calls: AuthCalls, registrationToken?: string, refreshBufferMs = 60 * SECOND) =>
    new WorkerCredentials({
      path: join(dir, 'credentials.json'),
      registrationToken,
      refreshBufferMs,
      workerName: 'gpu-1',
      calls,
      logger,
      now: clock,
    });

  it('is anonymous without a registration token or stored credentials', async () => {
    const { calls, log } = fakeCalls(clock);
    const credentials = make(calls);
    await credentials.load();
    expect(credentials.anonymous).toBe(true);
    expect(await credentials.accessTokenFor(endpoint)).toBeUndefined();
    expect(log).toEqual([]);
  });

  it('registers once, stores the pair with mode 0600, and refreshes only within the buffer before expiry', async () => {
    const { calls, log } = fakeCalls(clock);
    const credentials = make(calls, 'rt-secret');
    await credentials.load();
    expect(await credentials.accessTokenFor(endpoint)).toBe('access-1');
    expect(statSync(join(dir, 'credentials.json')).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8'))).toMatchObject({
      accessToken: 'access-1',
      refreshToken: 'refresh-1',
    });
    expect(credentials.msUntilRefresh()).toBe(240 * SECOND);

    now += 200 * SECOND;
    expect(await credentials.accessTokenFor(endpoint)).toBe('access-1');
    now += 41 * SECOND;
    expect(await credentials.accessTokenFor(endpoint)).toBe('access-2');
    expect(log).toEqual(['register rt-secret gpu-1', 'refresh refresh-1']);
    expect(JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8'))).toMatchObject({
      accessToken: 'access-2',
      refreshToken: 'refresh-2',
    });
  });

  it('refreshes half way through a token whose life is shorter than the buffer, never in a loop', async () => {
    const { calls } = fakeCalls(clock, 10 * SECOND);
    const credentials = make(calls, 'rt-secret', 60 * SECOND);
    await credentials.load();
    await credentials.accessTokenFor(endpoint);
    expect(credentials.msUntilRefresh()).toBe(5 * SECOND);
  });

  it('never presents a refresh token twice when two opens race', async () => {
    const { calls, log } = fakeCalls(clock);
    const credentials = make(calls, 'rt-secret');
    await credentials.load();
    await credentials.accessTokenFor(endpoint);
    now += 299 * SECOND;
    const tokens = await Promise.all([
      credentials.accessTokenFor(endpoint),
      credentials.refreshIfDue(endpoint),
      credentials.accessTokenFor(endpoint),
    ]);
    expect(tokens[0]).toBe('access-2');
    expect(tokens[2]).toBe('access-2');
    expect(log.filter((call) => call.startsWith('refresh'))).toEqual(['refresh refresh-1']);
  });

  it('keeps using a still valid access token when the refresh gets no answer', async () => {
    const { calls, behaviour } = fakeCalls(clock);
    const credentials = make(calls, 'rt-secret');
    await credentials.load();
    await credentials.accessTokenFor(endpoint);
    now += 250 * SECOND;
    behaviour.refresh = 'unavailable';
    expect(await credentials.accessTokenFor(endpoint)).toBe('access-1');
    now += 60 * SECOND; // expired now: nothing to fall back on
    await expect(credentials.accessTokenFor(endpoint)).rejects.toBeInstanceOf(AuthUnavailable);
  });

  it('registers again when the refresh is refused and a registration token is configured', async () => {
    const { calls, log, behaviour } = fakeCalls(clock);
    const credentials = make(calls, 'rt-secret');
    await credentials.load();
    await credentials.accessTokenFor(endpoint);
    credentials.accessTokenRefused();
    behaviour.refresh = 'refused';
    expect(await credentials.accessTokenFor(endpoint)).toBe('access-2');
    expect(log).toEqual(['register rt-secret gpu-1', 'refresh refresh-1', 'register rt-secret gpu-1']);
  });

  it('fails closed, once, when the refresh is refused and there is no registration token', async () => {
    const { calls, log, behaviour } = fakeCalls(clock);
    const first = make(calls, 'rt-secret');
    await first.load();
    await first.accessTokenFor(endpoint);
    const restarted = make(calls); // restarted without the registration token
    await restarted.load();
    restarted.accessTokenRefused();
    behaviour.refresh = 'refused';
    await expect(restarted.accessTokenFor(endpoint)).rejects.toThrow(
      new CredentialsLost(
        'the controller refused the refresh token (revoked, expired or already used); the worker has no registration token to register again: create a registration token for its worker group and set LANNER_WORKER_REGISTRATION_TOKEN',
      ),
    );
    await expect(restarted.accessTokenFor(endpoint)).rejects.toBeInstanceOf(CredentialsLost);
    expect(log.filter((call) => call.startsWith('refresh'))).toHaveLength(1);
    expect(restarted.msUntilRefresh()).toBeUndefined();
  });

  it('refreshes when a stream refuses the access token, and registers again when it refuses the refreshed one too', async () => {
    const { calls, log } = fakeCalls(clock);
    const credentials = make(calls, 'rt-secret');
    await credentials.load();
    await credentials.accessTokenFor(endpoint);
    credentials.accessTokenRefused();
    expect(await credentials.accessTokenFor(endpoint)).toBe('access-2');
    credentials.accessTokenRefused();
    expect(await credentials.accessTokenFor(endpoint)).toBe('access-3');
    expect(log).toEqual(['register rt-secret gpu-1', 'refresh refresh-1', 'register rt-secret gpu-1']);
    // The token of the new registration refused too: refresh it (a backoff paces the opens), never a stop.
    credentials.accessTokenRefused();
    expect(await credentials.accessTokenFor(endpoint)).toBe('access-4');
    expect(log.at(-1)).toBe('refresh refresh-3');
  });

  it('once a stream accepted a refreshed token, a later refusal refreshes again instead of registering', async () => {
    const { calls, log } = fakeCalls(clock);
    const credentials = make(calls, 'rt-secret');
    await credentials.load();
    await credentials.accessTokenFor(endpoint);
    credentials.accessTokenRefused();
    expect(await credentials.accessTokenFor(endpoint)).toBe('access-2');
    credentials.accessTokenAccepted();
    credentials.accessTokenRefused();
    expect(await credentials.accessTokenFor(endpoint)).toBe('access-3');
    expect(log).toEqual(['register rt-secret gpu-1', 'refresh refresh-1', 'refresh refresh-2']);
  });

  it('without a registration token, stops once the refreshed access token is refused too', async () => {
    const { calls, log } = fakeCalls(clock);
    const first = make(calls, 'rt-secret');
    await first.load();
    await first.accessTokenFor(endpoint);
    const restarted = make(calls);
    await restarted.load();
    restarted.accessTokenRefused();
    expect(await restarted.accessTokenFor(endpoint)).toBe('access-2');
    restarted.accessTokenRefused();
    await expect(restarted.accessTokenFor(endpoint)).rejects.toThrow(
      'the controller refused the refreshed access token too; the worker has no registration token to register again',
    );
    expect(log.filter((call) => call.startsWith('refresh'))).toHaveLength(1);
  });

  it('fails closed when the registration token is refused', async () => {
    const { calls, behaviour } = fakeCalls(clock);
    behaviour.register = 'refused';
    const credentials = make(calls, 'rt-revoked');
    await credentials.load();
    await expect(credentials.accessTokenFor(endpoint)).rejects.toThrow(
      'the controller refused the registration (Register: UNAUTHENTICATED); when it names the registration token',
    );
  });

  it('replaces a broken credentials file by registering, or names it when it cannot', async () => {
    const path = join(dir, 'credentials.json');
    writeFileSync(path, '{"version":1,"workerId":"w-1"', { mode: 0o600 });
    const { calls, log } = fakeCalls(clock);
    await expect(make(calls).load()).rejects.toThrow(
      `${path} is not valid JSON; fix or delete it, or set LANNER_WORKER_REGISTRATION_TOKEN so the worker registers again`,
    );
    const withToken = make(calls, 'rt-secret');
    await withToken.load();
    expect(await withToken.accessTokenFor(endpoint)).toBe('access-1');
    expect(log).toEqual(['register rt-secret gpu-1']);
  });
});
