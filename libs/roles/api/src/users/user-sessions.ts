import { DEFAULT_TENANT_ID } from '@lanner/model';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  AccessTokenRejected,
  assertAcceptablePassword,
  hashPassword,
  signingKeyFrom,
  UserAccessTokens,
  type UserIdentity,
  UserSessionIssuer,
} from '@lanner/auth';
import { AlreadyExists, type Repositories } from '@lanner/repository';
import { REPOSITORIES } from '@lanner/runtime';
import { API_ROLE_OPTIONS, type ApiRoleOptions } from '../api-role.options';
import { NotConfigured, Unauthenticated } from '../http/api-errors';

const DEFAULT_ACCESS_TTL_S = 900;
const DEFAULT_REFRESH_TTL_S = 7 * 24 * 3600;
const DEFAULT_MAX_FAILED_LOGINS = 5;
const DEFAULT_LOCKOUT_S = 900;

/** A JWT has three dot-separated parts; API tokens never hold a dot. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export function looksLikeJwt(token: string): boolean {
  return JWT_SHAPE.test(token);
}

/**
 * Users' logins for the api role: the session issuer of `@lanner/auth` over
 * the users repository, with the signing key from the options. Without a key,
 * every login route answers 503 and user JWTs are refused.
 */
@Injectable()
export class UserSessions {
  private readonly logger = new Logger(UserSessions.name);
  private readonly tokens: UserAccessTokens | undefined;
  private readonly issuer: UserSessionIssuer | undefined;
  readonly refreshTokenTtlS: number;

  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(API_ROLE_OPTIONS) private readonly options: ApiRoleOptions,
  ) {
    const users = options.users ?? {};
    this.refreshTokenTtlS = users.refreshTokenTtlS ?? DEFAULT_REFRESH_TTL_S;
    if (users.signingKey === undefined || users.signingKey === '') return;
    this.tokens = new UserAccessTokens(
      signingKeyFrom(users.signingKey, 'LANNER_USER_JWT_SIGNING_KEY'),
      users.accessTokenTtlS ?? DEFAULT_ACCESS_TTL_S,
    );
    this.issuer = new UserSessionIssuer(repositories.users, this.tokens, {
      refreshTokenTtlS: this.refreshTokenTtlS,
      maxFailedLogins: users.maxFailedLogins ?? DEFAULT_MAX_FAILED_LOGINS,
      lockoutS: users.lockoutS ?? DEFAULT_LOCKOUT_S,
    });
  }

  /** The issuer, or a 503 saying what to configure. */
  get sessions(): UserSessionIssuer {
    if (this.issuer === undefined) {
      throw new NotConfigured('User login is not configured: set LANNER_USER_JWT_SIGNING_KEY (at least 32 bytes)');
    }
    return this.issuer;
  }

  /** The user a bearer JWT proves, or a 401. */
  verify(token: string, now: Date): UserIdentity {
    if (this.tokens === undefined) throw new Unauthenticated('User access tokens are not accepted: user login is not configured');
    try {
      return this.tokens.verify(token, now);
    } catch (error) {
      if (error instanceof AccessTokenRejected)
        throw new Unauthenticated(error.message.replace('refresh it', 'refresh it at /api/v1/auth/refresh'));
      throw error;
    }
  }

  /** Standalone's first start: the first admin user, when no user exists yet. Idempotent. */
  async ensureFirstAdmin(): Promise<void> {
    const first = this.options.users?.firstAdmin;
    if (first === undefined || (await this.repositories.users.count()) > 0) return;
    assertAcceptablePassword(first.password);
    try {
      await this.repositories.users.create({
        username: first.username,
        passwordHash: await hashPassword(first.password),
        tenantId: DEFAULT_TENANT_ID,
        role: 'ADMIN',
        instanceAdmin: true,
      });
      this.logger.log({ username: first.username }, 'created the first admin user');
    } catch (error) {
      // Another api instance created it meanwhile.
      if (!(error instanceof AlreadyExists)) throw error;
    }
  }
}
