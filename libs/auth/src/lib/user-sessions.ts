import { randomUUID } from 'node:crypto';
import { Algorithm, hash, verify } from '@node-rs/argon2';
import jwt from 'jsonwebtoken';
import { generateSecretToken, hashToken, sameTokenHash } from './secret-tokens';
import type { SigningKey } from './signing-key';
import { ACCESS_TOKEN_ISSUER, AccessTokenRejected, rejectionOf } from './worker-access-tokens';

export const USER_TOKEN_AUDIENCE = 'lanner-user';
const ALGORITHM = 'HS256';

/** Passwords: long enough to resist guessing, short enough that hashing one is not a denial of service. */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

/** OWASP's argon2id baseline (19 MiB, 2 passes, 1 lane). */
const ARGON2_OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** A password that cannot be set: the message says what is wrong, never the password. */
export class WeakPassword extends Error {
  constructor(field: string) {
    super(`${field} must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`);
    this.name = 'WeakPassword';
  }
}

export function assertAcceptablePassword(password: string, field = 'password'): void {
  if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new WeakPassword(field);
  }
}

/** argon2id in its PHC string form (salt and parameters inside). */
export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

/** Whether the password matches; a malformed stored hash is a mismatch. */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** Who a user is, as a verified access token says. */
export interface UserIdentity {
  readonly userId: string;
  readonly username: string;
  readonly tenantId: string;
  /** The stored role name: ADMIN, DEVELOPER or VIEWER. */
  readonly role: string;
  readonly instanceAdmin: boolean;
}

interface UserClaims {
  readonly sub: string;
  readonly username: string;
  readonly tenant: string;
  readonly role: string;
  readonly instance_admin: boolean;
}

/** Short-lived user access JWTs: HS256, issuer `lanner`, audience `lanner-user` (a worker's token is not one). */
export class UserAccessTokens {
  constructor(
    private readonly key: SigningKey,
    readonly accessTokenTtlS: number,
  ) {
    if (!Number.isInteger(accessTokenTtlS) || accessTokenTtlS <= 0) {
      throw new RangeError(`the access token lifetime must be a positive number of seconds, not ${accessTokenTtlS}`);
    }
  }

  issue(identity: UserIdentity, now: Date): { token: string; expiresAt: Date } {
    const issuedAt = Math.floor(now.getTime() / 1000);
    const expiresAt = issuedAt + this.accessTokenTtlS;
    const claims: UserClaims & { iat: number; nbf: number; exp: number } = {
      sub: identity.userId,
      username: identity.username,
      tenant: identity.tenantId,
      role: identity.role,
      instance_admin: identity.instanceAdmin,
      iat: issuedAt,
      nbf: issuedAt,
      exp: expiresAt,
    };
    const token = jwt.sign(claims, this.key.bytes, {
      algorithm: ALGORITHM,
      issuer: ACCESS_TOKEN_ISSUER,
      audience: USER_TOKEN_AUDIENCE,
      jwtid: randomUUID(),
    });
    return { token, expiresAt: new Date(expiresAt * 1000) };
  }

  verify(token: string, now: Date): UserIdentity {
    let payload: string | jwt.JwtPayload;
    try {
      payload = jwt.verify(token, this.key.bytes, {
        algorithms: [ALGORITHM],
        issuer: ACCESS_TOKEN_ISSUER,
        audience: USER_TOKEN_AUDIENCE,
        clockTimestamp: Math.floor(now.getTime() / 1000),
      });
    } catch (error) {
      throw rejectionOf(error);
    }
    const claims = (typeof payload === 'object' && payload !== null ? payload : {}) as Partial<Record<keyof UserClaims, unknown>>;
    const { sub, username, tenant, role, instance_admin: instanceAdmin } = claims;
    if (typeof sub !== 'string' || typeof username !== 'string' || typeof tenant !== 'string' || typeof role !== 'string') {
      throw new AccessTokenRejected('malformed', 'the access token lacks the user claims; log in again');
    }
    return { userId: sub, username, tenantId: tenant, role, instanceAdmin: instanceAdmin === true };
  }
}

// --- the store port --------------------------------------------------------------

export interface StoredLoginUser {
  readonly id: string;
  readonly username: string;
  readonly tenantId: string;
  readonly role: string;
  readonly instanceAdmin: boolean;
  readonly lockedUntil: Date | null;
}

export type UserRefreshOutcome =
  | {
      readonly outcome: 'rotated' | 'used' | 'revoked' | 'expired';
      readonly token: { readonly userId: string; readonly familyId: string; readonly tokenHash: string };
    }
  | { readonly outcome: 'unknown' };

/** What the session issuer needs from persistence (the api adapts the users repository to it). */
export interface UserSessionStore {
  findForLogin(username: string): Promise<{ user: StoredLoginUser; passwordHash: string } | null>;
  findByIdForLogin(id: string): Promise<{ user: StoredLoginUser; passwordHash: string } | null>;
  recordFailedLogin(id: string, limit: number, lockUntil: Date): Promise<{ failedLogins: number; lockedUntil: Date | null }>;
  recordSuccessfulLogin(id: string): Promise<void>;
  createRefreshToken(token: { userId: string; familyId: string; tokenHash: string; expiresAt: Date }): Promise<void>;
  consumeRefreshToken(
    tokenHash: string,
    successor: { tokenHash: string; expiresAt: Date },
    at: Date,
  ): Promise<UserRefreshOutcome>;
  revokeRefreshFamily(familyId: string, at: Date): Promise<number>;
  revokeRefreshTokensOf(userId: string, at: Date): Promise<number>;
  refreshFamilyOf(tokenHash: string): Promise<string | null>;
  update(username: string, change: { passwordHash: string }): Promise<unknown>;
}

// --- errors ------------------------------------------------------------------------

/** Wrong username or password: one message for both, so usernames cannot be probed. */
export class LoginRejected extends Error {
  constructor() {
    super('The username or the password is wrong');
    this.name = 'LoginRejected';
  }
}

/** Too many failed logins: refused until `until`, whatever the password. */
export class LoginLocked extends Error {
  constructor(readonly until: Date) {
    super(`Too many failed logins: this user is locked until ${until.toISOString()}`);
    this.name = 'LoginLocked';
  }
}

/** A refresh token that gives nothing (unknown, used, revoked or expired): one message whatever the reason. */
export class SessionRejected extends Error {
  constructor(readonly reason: 'unknown' | 'used' | 'revoked' | 'expired' | 'user-removed') {
    super('The session is unknown, expired or ended; log in again');
    this.name = 'SessionRejected';
  }
}

export interface UserSession {
  readonly user: UserIdentity;
  readonly accessToken: string;
  readonly accessExpiresAt: Date;
  readonly refreshToken: string;
  readonly refreshExpiresAt: Date;
}

export interface UserSessionOptions {
  readonly refreshTokenTtlS: number;
  /** Failed logins in a row that lock the user. */
  readonly maxFailedLogins: number;
  readonly lockoutS: number;
}

/**
 * Logins of users with a password, and their sessions. The refresh token
 * follows the worker credentials' rule: single use, rotated at every refresh,
 * and presenting a used one again revokes its whole family (a copy was taken).
 */
export class UserSessionIssuer {
  /** Verified against when the username is unknown, so that both answers take as long. */
  private readonly decoyHash: Promise<string>;

  constructor(
    private readonly store: UserSessionStore,
    private readonly tokens: UserAccessTokens,
    private readonly options: UserSessionOptions,
  ) {
    this.decoyHash = hashPassword(generateSecretToken());
  }

  async login(username: string, password: string, now: Date): Promise<UserSession> {
    const found = typeof username === 'string' && username !== '' ? await this.store.findForLogin(username) : null;
    if (found === null) {
      await verifyPassword(await this.decoyHash, String(password));
      throw new LoginRejected();
    }
    const { user } = found;
    if (user.lockedUntil !== null && user.lockedUntil.getTime() > now.getTime()) throw new LoginLocked(user.lockedUntil);
    if (
      typeof password !== 'string' ||
      password.length > MAX_PASSWORD_LENGTH ||
      !(await verifyPassword(found.passwordHash, password))
    ) {
      const lockUntil = new Date(now.getTime() + this.options.lockoutS * 1000);
      const failure = await this.store.recordFailedLogin(user.id, this.options.maxFailedLogins, lockUntil);
      if (failure.lockedUntil !== null && failure.lockedUntil.getTime() > now.getTime())
        throw new LoginLocked(failure.lockedUntil);
      throw new LoginRejected();
    }
    await this.store.recordSuccessfulLogin(user.id);
    const refresh = this.newRefreshToken(now);
    await this.store.createRefreshToken({
      userId: user.id,
      familyId: randomUUID(),
      tokenHash: refresh.tokenHash,
      expiresAt: refresh.expiresAt,
    });
    return this.session(user, refresh, now);
  }

  async refresh(refreshToken: string, now: Date): Promise<UserSession> {
    if (typeof refreshToken !== 'string' || refreshToken === '') throw new SessionRejected('unknown');
    const presented = hashToken(refreshToken);
    const successor = this.newRefreshToken(now);
    const consumed = await this.store.consumeRefreshToken(
      presented,
      { tokenHash: successor.tokenHash, expiresAt: successor.expiresAt },
      now,
    );
    if (consumed.outcome === 'unknown' || !sameTokenHash(consumed.token.tokenHash, presented))
      throw new SessionRejected('unknown');
    if (consumed.outcome === 'used') {
      // A token already exchanged came back: someone holds a copy, so nothing of this login can be trusted any more.
      await this.store.revokeRefreshFamily(consumed.token.familyId, now);
      throw new SessionRejected('used');
    }
    if (consumed.outcome !== 'rotated') throw new SessionRejected(consumed.outcome);
    const found = await this.store.findByIdForLogin(consumed.token.userId);
    if (found === null) throw new SessionRejected('user-removed');
    return this.session(found.user, successor, now);
  }

  /** Ends the login the refresh token belongs to (every token of its family). Unknown tokens change nothing. */
  async logout(refreshToken: string | undefined, now: Date): Promise<void> {
    if (refreshToken === undefined || refreshToken === '') return;
    const familyId = await this.store.refreshFamilyOf(hashToken(refreshToken));
    if (familyId !== null) await this.store.revokeRefreshFamily(familyId, now);
  }

  /** Checks the current password, stores the new one and ends every login of the user. */
  async changePassword(userId: string, currentPassword: string, newPassword: string, now: Date): Promise<void> {
    const found = await this.store.findByIdForLogin(userId);
    if (found === null || typeof currentPassword !== 'string' || !(await verifyPassword(found.passwordHash, currentPassword))) {
      throw new LoginRejected();
    }
    assertAcceptablePassword(newPassword, 'newPassword');
    await this.store.update(found.user.username, { passwordHash: await hashPassword(newPassword) });
    await this.store.revokeRefreshTokensOf(userId, now);
  }

  private newRefreshToken(now: Date): { token: string; tokenHash: string; expiresAt: Date } {
    const token = generateSecretToken();
    return { token, tokenHash: hashToken(token), expiresAt: new Date(now.getTime() + this.options.refreshTokenTtlS * 1000) };
  }

  private session(user: StoredLoginUser, refresh: { token: string; expiresAt: Date }, now: Date): UserSession {
    const identity: UserIdentity = {
      userId: user.id,
      username: user.username,
      tenantId: user.tenantId,
      role: user.role,
      instanceAdmin: user.instanceAdmin,
    };
    const access = this.tokens.issue(identity, now);
    return {
      user: identity,
      accessToken: access.token,
      accessExpiresAt: access.expiresAt,
      refreshToken: refresh.token,
      refreshExpiresAt: refresh.expiresAt,
    };
  }
}
