import type { Strategy } from 'passport-jwt';
import { signingKeyFrom } from './signing-key';
import { AccessTokenRejected, WorkerAccessTokens, type WorkerIdentity } from './worker-access-tokens';
import { WORKER_JWT_STRATEGY, workerJwtStrategy } from './worker-jwt.strategy';

const tokens = new WorkerAccessTokens(signingKeyFrom('strategy-spec-signing-key-0123456789abcdef', 'spec'), 300);
const identity: WorkerIdentity = {
  workerId: 'worker-7',
  workerGroupId: 'etl',
  registrationTokenId: '0b9f7f0e-2222-4c53-9d0b-7a5b7a0c0002',
};

type Outcome =
  { kind: 'success'; user: unknown } | { kind: 'fail'; info: unknown; status?: number } | { kind: 'error'; error: unknown };

// What passport does around a strategy: it gives it success/fail/error and calls authenticate with the request.
function authenticate(strategy: Strategy, headers: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve) => {
    const attempt = Object.assign(Object.create(strategy) as Strategy, {
      success: (user: unknown) => resolve({ kind: 'success', user }),
      fail: (info: unknown, status?: number) => resolve({ kind: 'fail', info, status }),
      error: (error: unknown) => resolve({ kind: 'error', error }),
    });
    attempt.authenticate({ headers } as never);
  });
}

describe('worker JWT passport strategy', () => {
  const strategy = workerJwtStrategy(tokens);

  it('is named for the worker tokens', () => {
    expect(strategy.name).toBe(WORKER_JWT_STRATEGY);
  });

  it('accepts a good bearer token and yields the identity it proves', async () => {
    const { token } = tokens.issue(identity, new Date());
    expect(await authenticate(strategy, { authorization: `Bearer ${token}` })).toEqual({ kind: 'success', user: identity });
  });

  it('rejects a token signed with another key with 401 and the reason', async () => {
    const other = new WorkerAccessTokens(signingKeyFrom('another-signing-key-0123456789abcdefgh', 'spec'), 300);
    const outcome = await authenticate(strategy, { authorization: `Bearer ${other.issue(identity, new Date()).token}` });
    expect(outcome).toMatchObject({ kind: 'fail', status: 401 });
    expect((outcome as { info: AccessTokenRejected }).info).toMatchObject({ problem: 'bad-signature' });
  });

  it('rejects an expired token and a request without a bearer token', async () => {
    const { token } = tokens.issue(identity, new Date(Date.now() - 600_000));
    const expired = await authenticate(strategy, { authorization: `Bearer ${token}` });
    expect((expired as { info: AccessTokenRejected }).info).toMatchObject({ problem: 'expired' });
    const missing = await authenticate(strategy, {});
    expect(missing).toMatchObject({ kind: 'fail', status: 401 });
    expect((missing as { info: Error }).info.message).toBe('no worker access token: send `Authorization: Bearer <access token>`');
  });
});
