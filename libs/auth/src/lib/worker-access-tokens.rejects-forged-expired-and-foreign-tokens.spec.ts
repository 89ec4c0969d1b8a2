import { createHmac } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { signingKeyFrom } from './signing-key';
import { AccessTokenRejected, type AccessTokenProblem, WorkerAccessTokens, type WorkerIdentity } from './worker-access-tokens';

const key = signingKeyFrom('worker-access-token-spec-key-0123456789', 'spec');
const tokens = new WorkerAccessTokens(key, 300);
const identity: WorkerIdentity = {
  workerId: 'worker-1',
  workerGroupId: 'gpu',
  registrationTokenId: '6f1d4d57-1111-4c53-9d0b-7a5b7a0c0001',
};
const now = new Date('2026-11-30T12:00:00.000Z');
const seconds = (count: number) => new Date(now.getTime() + count * 1000);

function rejection(token: string, at = now): AccessTokenRejected {
  try {
    tokens.verify(token, at);
  } catch (error) {
    if (error instanceof AccessTokenRejected) return error;
    throw error;
  }
  throw new Error('the token was accepted');
}

function expectProblem(token: string, problem: AccessTokenProblem, at = now): AccessTokenRejected {
  const rejected = rejection(token, at);
  expect(rejected.problem).toBe(problem);
  return rejected;
}

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('worker access tokens', () => {
  it('round-trips the worker, group and registration-token ids and expires after the lifetime', () => {
    const issued = tokens.issue(identity, now);
    expect(issued.expiresAt).toEqual(seconds(300));
    expect(tokens.verify(issued.token, seconds(299))).toEqual(identity);
    const header = JSON.parse(Buffer.from(issued.token.split('.')[0], 'base64url').toString()) as Record<string, unknown>;
    expect(header['alg']).toBe('HS256');
    const claims = jwt.decode(issued.token) as Record<string, unknown>;
    expect(claims).toMatchObject({ sub: 'worker-1', worker_group_id: 'gpu', iss: 'lanner', aud: 'lanner-worker' });
  });

  it('refuses an expired token and says when it expired', () => {
    const { token } = tokens.issue(identity, now);
    const rejected = expectProblem(token, 'expired', seconds(300));
    expect(rejected.message).toBe('the access token expired at 2026-11-30T12:05:00.000Z; refresh it');
  });

  it('refuses a token used before it was issued (clock skew)', () => {
    const { token } = tokens.issue(identity, now);
    expectProblem(token, 'not-yet-valid', seconds(-60));
  });

  it('refuses a token whose payload was changed (another group claimed)', () => {
    const [header, payload, signature] = tokens.issue(identity, now).token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = [header, base64url({ ...claims, worker_group_id: 'admin-group' }), signature].join('.');
    expectProblem(forged, 'bad-signature');
  });

  it('refuses a token signed with another key', () => {
    const other = new WorkerAccessTokens(signingKeyFrom('another-cluster-signing-key-0123456789', 'spec'), 300);
    expectProblem(other.issue(identity, now).token, 'bad-signature');
  });

  it('refuses an unsigned token (alg: none)', () => {
    const claims = jwt.decode(tokens.issue(identity, now).token) as object;
    const unsigned = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims)}.`;
    expectProblem(unsigned, 'bad-signature');
  });

  it('refuses a token signed with the same key but another algorithm (HS512)', () => {
    const claims = jwt.decode(tokens.issue(identity, now).token) as object;
    const header = base64url({ alg: 'HS512', typ: 'JWT' });
    const body = base64url(claims);
    const signature = createHmac('sha512', key.bytes).update(`${header}.${body}`).digest('base64url');
    expectProblem(`${header}.${body}.${signature}`, 'bad-signature');
  });

  it('refuses a token for another audience or from another issuer', () => {
    const iat = Math.floor(now.getTime() / 1000);
    const claims = {
      sub: 'worker-1',
      worker_group_id: 'gpu',
      registration_token_id: identity.registrationTokenId,
      iat,
      exp: iat + 300,
    };
    const forApi = jwt.sign({ ...claims, iss: 'lanner', aud: 'lanner-api' }, key.bytes, { algorithm: 'HS256' });
    expect(expectProblem(forApi, 'wrong-audience').message).toBe('the access token was not issued by lanner for lanner-worker');
    const foreign = jwt.sign({ ...claims, iss: 'someone-else', aud: 'lanner-worker' }, key.bytes, { algorithm: 'HS256' });
    expectProblem(foreign, 'wrong-audience');
  });

  it('refuses garbage and a signed token without the worker claims', () => {
    expectProblem('not-a-jwt', 'malformed');
    expectProblem('', 'malformed');
    const iat = Math.floor(now.getTime() / 1000);
    const bare = jwt.sign({ iss: 'lanner', aud: 'lanner-worker', sub: 'worker-1', iat, exp: iat + 60 }, key.bytes, {
      algorithm: 'HS256',
    });
    expectProblem(bare, 'malformed');
  });
});
