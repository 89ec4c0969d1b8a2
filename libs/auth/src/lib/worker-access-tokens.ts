import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { SigningKey } from './signing-key';

export const ACCESS_TOKEN_ISSUER = 'lanner';
export const ACCESS_TOKEN_AUDIENCE = 'lanner-worker';
const ALGORITHM = 'HS256';

/** Who a worker is, as a verified access token says. Never taken from what the worker says about itself. */
export interface WorkerIdentity {
  readonly workerId: string;
  readonly workerGroupId: string;
  readonly registrationTokenId: string;
}

export type AccessTokenProblem = 'malformed' | 'bad-signature' | 'expired' | 'not-yet-valid' | 'wrong-audience';

/** An access token that does not prove a worker identity. The message is safe to return to the worker. */
export class AccessTokenRejected extends Error {
  constructor(
    readonly problem: AccessTokenProblem,
    message: string,
  ) {
    super(message);
    this.name = 'AccessTokenRejected';
  }
}

/** The claims of a worker access token beyond the registered ones (`sub` is the worker id). */
interface WorkerClaims {
  readonly sub: string;
  readonly worker_group_id: string;
  readonly registration_token_id: string;
}

/** The jsonwebtoken options every verification uses: the access tokens and the passport strategy share them. */
export function accessTokenVerifyOptions(): jwt.VerifyOptions & { algorithms: jwt.Algorithm[] } {
  return { algorithms: [ALGORITHM], issuer: ACCESS_TOKEN_ISSUER, audience: ACCESS_TOKEN_AUDIENCE };
}

/**
 * Issues and verifies worker access tokens: JWTs signed with HS256, issuer
 * `lanner`, audience `lanner-worker`, carrying the worker id (`sub`), its group
 * and the registration token it registered with. Time is an argument.
 */
export class WorkerAccessTokens {
  constructor(
    private readonly key: SigningKey,
    readonly accessTokenTtlS: number,
  ) {
    if (!Number.isInteger(accessTokenTtlS) || accessTokenTtlS <= 0) {
      throw new RangeError(`the access token lifetime must be a positive number of seconds, not ${accessTokenTtlS}`);
    }
  }

  issue(identity: WorkerIdentity, now: Date): { token: string; expiresAt: Date } {
    const issuedAt = Math.floor(now.getTime() / 1000);
    const expiresAt = issuedAt + this.accessTokenTtlS;
    const claims: WorkerClaims & { iat: number; nbf: number; exp: number } = {
      sub: identity.workerId,
      worker_group_id: identity.workerGroupId,
      registration_token_id: identity.registrationTokenId,
      iat: issuedAt,
      nbf: issuedAt,
      exp: expiresAt,
    };
    const token = jwt.sign(claims, this.key.bytes, {
      algorithm: ALGORITHM,
      issuer: ACCESS_TOKEN_ISSUER,
      audience: ACCESS_TOKEN_AUDIENCE,
      jwtid: randomUUID(),
    });
    return { token, expiresAt: new Date(expiresAt * 1000) };
  }

  /** The identity the token proves at `now`, or AccessTokenRejected saying what is wrong with it. */
  verify(token: string, now: Date): WorkerIdentity {
    let payload: string | jwt.JwtPayload;
    try {
      payload = jwt.verify(token, this.key.bytes, {
        ...accessTokenVerifyOptions(),
        clockTimestamp: Math.floor(now.getTime() / 1000),
      });
    } catch (error) {
      throw rejectionOf(error);
    }
    return identityFromClaims(payload);
  }
}

/** The identity in verified claims; AccessTokenRejected('malformed') when a claim is missing. */
export function identityFromClaims(payload: unknown): WorkerIdentity {
  const claims = (typeof payload === 'object' && payload !== null ? payload : {}) as Partial<Record<keyof WorkerClaims, unknown>>;
  const { sub, worker_group_id: workerGroupId, registration_token_id: registrationTokenId } = claims;
  if (!isPresent(sub) || !isPresent(workerGroupId) || !isPresent(registrationTokenId)) {
    throw new AccessTokenRejected(
      'malformed',
      'the access token lacks the worker id, worker group or registration token claims; register again',
    );
  }
  return { workerId: sub, workerGroupId, registrationTokenId };
}

function isPresent(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/** Maps a jsonwebtoken failure to a problem and a message for the worker (jsonwebtoken's own texts are not shown). */
export function rejectionOf(error: unknown): AccessTokenRejected {
  if (error instanceof jwt.TokenExpiredError) {
    return new AccessTokenRejected('expired', `the access token expired at ${error.expiredAt.toISOString()}; refresh it`);
  }
  if (error instanceof jwt.NotBeforeError) {
    return new AccessTokenRejected(
      'not-yet-valid',
      `the access token is not valid before ${error.date.toISOString()}; check the clocks of the worker and the controller`,
    );
  }
  const reason = error instanceof Error ? error.message : '';
  if (reason === 'invalid signature' || reason === 'invalid algorithm' || reason === 'jwt signature is required') {
    return new AccessTokenRejected(
      'bad-signature',
      'the access token is not signed by this cluster (HS256 with its signing key); register again',
    );
  }
  if (reason.startsWith('jwt audience invalid') || reason.startsWith('jwt issuer invalid')) {
    return new AccessTokenRejected(
      'wrong-audience',
      `the access token was not issued by ${ACCESS_TOKEN_ISSUER} for ${ACCESS_TOKEN_AUDIENCE}`,
    );
  }
  return new AccessTokenRejected('malformed', 'the access token is not a well-formed JWT');
}
