import { ExtractJwt, Strategy } from 'passport-jwt';
import { bearerToken } from './secret-tokens';
import {
  ACCESS_TOKEN_AUDIENCE,
  ACCESS_TOKEN_ISSUER,
  AccessTokenRejected,
  accessTokenVerifyOptions,
  type WorkerAccessTokens,
} from './worker-access-tokens';

export const WORKER_JWT_STRATEGY = 'lanner-worker-jwt';

/** What the strategy reads: an HTTP request's headers (Express, Fastify and plain objects alike). */
interface RequestWithHeaders {
  readonly headers?: Record<string, string | string[] | undefined>;
}

/**
 * The worker access token check of WorkerAccessTokens as a passport strategy
 * (named `lanner-worker-jwt`) for HTTP callers: the identity comes from the
 * verified token of the `Authorization: Bearer` header and nowhere else. A
 * refusal fails with status 401 and the AccessTokenRejected as info.
 */
class WorkerJwtStrategy extends Strategy {
  constructor(private readonly tokens: WorkerAccessTokens) {
    // authenticate() below verifies with WorkerAccessTokens itself, so HTTP and gRPC share one check; the
    // options only satisfy the base class (its own key lookup refuses, should anything ever reach it).
    const { algorithms } = accessTokenVerifyOptions();
    super(
      {
        algorithms,
        issuer: ACCESS_TOKEN_ISSUER,
        audience: ACCESS_TOKEN_AUDIENCE,
        jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
        secretOrKeyProvider: (_request: unknown, _token: unknown, done: (error: Error) => void) =>
          done(new AccessTokenRejected('bad-signature', 'the worker access token could not be checked')),
      },
      (_payload: unknown, done: (error: null, user: false) => void) => done(null, false),
    );
    this.name = WORKER_JWT_STRATEGY;
  }

  override authenticate(request: RequestWithHeaders): void {
    const header = request.headers?.['authorization'];
    const token = bearerToken(Array.isArray(header) ? header[0] : header);
    if (token === undefined) {
      this.fail(new AccessTokenRejected('malformed', 'no worker access token: send `Authorization: Bearer <access token>`'), 401);
      return;
    }
    try {
      this.success(this.tokens.verify(token, new Date()));
    } catch (error) {
      if (error instanceof AccessTokenRejected) this.fail(error, 401);
      else this.error(error instanceof Error ? error : new Error('the worker access token could not be checked'));
    }
  }
}

export function workerJwtStrategy(tokens: WorkerAccessTokens): Strategy {
  return new WorkerJwtStrategy(tokens);
}
