import { randomUUID } from 'node:crypto';
import { generateSecretToken, hashToken, sameTokenHash } from './secret-tokens';
import type { WorkerAccessTokens, WorkerIdentity } from './worker-access-tokens';

/** What a worker keeps after Register or Refresh. */
export interface IssuedWorkerCredentials {
  readonly accessToken: string;
  readonly accessExpiresAt: Date;
  readonly refreshToken: string;
  readonly refreshExpiresAt: Date;
  readonly workerId: string;
  readonly workerGroupId: string;
  readonly registrationTokenId: string;
}

/** Why a credential was refused: for server logs only, never sent to the worker. */
export type CredentialRejection =
  | 'unknown-registration-token'
  | 'registration-token-revoked'
  | 'unknown-refresh-token'
  | 'refresh-token-expired'
  | 'refresh-token-revoked'
  | 'refresh-token-reused'
  | 'worker-removed';

/**
 * A registration or refresh token that gives no credentials. The message is
 * the same whatever the reason, so a token cannot be probed; `reason` and the
 * ids are for server logs.
 */
export class CredentialRejected extends Error {
  constructor(
    readonly reason: CredentialRejection,
    readonly ids: { readonly registrationTokenId?: string; readonly workerId?: string; readonly refreshFamilyId?: string } = {},
  ) {
    super('the token is unknown, revoked, expired or already used; register again with a registration token');
    this.name = 'CredentialRejected';
  }
}

/** A request that cannot be a valid one whatever is stored: the message names the field and what is wrong. */
export class InvalidCredentialRequest extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`${field} ${problem}`);
    this.name = 'InvalidCredentialRequest';
  }
}

/** The credential store failed (database down): the worker should retry with backoff. */
export class CredentialStoreUnavailable extends Error {
  constructor(cause: unknown) {
    super('the controller cannot reach its credential store; retry with backoff', { cause });
    this.name = 'CredentialStoreUnavailable';
  }
}

/** Every token Lanner issues, and the registration tokens declared in setup: URL-safe base64. */
const SECRET_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43,512}$/;
const SECRET_TOKEN_FORMAT = 'must be 43 to 512 URL-safe base64 characters (A-Z, a-z, 0-9, - and _)';
export const MAX_WORKER_NAME_LENGTH = 255;

// --- the store port --------------------------------------------------------------

/** A registration token as the issuer needs it: its stored hash comes along for a constant-time comparison. */
export interface StoredRegistrationToken {
  readonly id: string;
  readonly workerGroupId: string;
  readonly tokenHash: string;
  readonly revokedAt: Date | null;
}

export interface NewWorker {
  readonly id: string;
  readonly workerGroupId: string;
  readonly registrationTokenId: string;
  readonly name: string | null;
}

export interface NewRefreshToken {
  readonly tokenHash: string;
  readonly familyId: string;
  readonly expiresAt: Date;
}

/** The presented refresh token and the worker it belongs to. */
export interface StoredRefreshToken {
  readonly id: string;
  readonly familyId: string;
  readonly tokenHash: string;
  readonly workerId: string;
  readonly workerGroupId: string;
  /** Null once the registration token was deleted. */
  readonly registrationTokenId: string | null;
  /** Whether that registration token exists and is not revoked, read in the same atomic step. */
  readonly registrationTokenActive: boolean;
}

/**
 * The outcome of presenting a refresh token. `rotated`: it was unused, is now
 * used, and its successor is stored, all in one atomic step (of two concurrent
 * presentations exactly one rotates; the other sees `used`).
 */
export type RefreshTokenConsumption =
  | { readonly outcome: 'rotated'; readonly token: StoredRefreshToken }
  | { readonly outcome: 'used' | 'revoked' | 'expired'; readonly token: StoredRefreshToken }
  | { readonly outcome: 'unknown' };

/** What the issuer needs from persistence; the controller adapts the repositories to it. */
export interface WorkerCredentialStore {
  /** The registration token with this hash, revoked or not; null when none. */
  findRegistrationTokenByHash(tokenHash: string): Promise<StoredRegistrationToken | null>;
  markRegistrationTokenUsed(registrationTokenId: string, at: Date): Promise<void>;
  /** Creates the worker and the first refresh token of a new family, atomically. */
  createWorker(worker: NewWorker, firstRefreshToken: NewRefreshToken, at: Date): Promise<void>;
  /** Marks the token used and stores its successor (same family) in one atomic step, if the token is usable at `at`. */
  consumeRefreshToken(
    tokenHash: string,
    successor: Omit<NewRefreshToken, 'familyId'>,
    at: Date,
  ): Promise<RefreshTokenConsumption>;
  /** Revokes every token of the family that is not revoked yet; returns how many. */
  revokeRefreshFamily(familyId: string, at: Date): Promise<number>;
}

// --- the issuer ----------------------------------------------------------------------

/**
 * Turns a registration token into worker credentials and rotates them:
 * - Register: the registration token (looked up by hash, refused when revoked)
 *   gives a new worker (`worker-<uuid>`, chosen here, never by the worker), an
 *   access token and the first refresh token of a new family.
 * - Refresh: a refresh token is single use. Presenting it again, or losing a
 *   race with a concurrent presentation, revokes its whole family, the newest
 *   token included. It is refused once the registration token is revoked.
 */
export class WorkerCredentialIssuer {
  private readonly refreshTokenTtlS: number;

  constructor(
    private readonly store: WorkerCredentialStore,
    private readonly tokens: WorkerAccessTokens,
    options: { refreshTokenTtlS: number },
  ) {
    if (!Number.isInteger(options.refreshTokenTtlS) || options.refreshTokenTtlS <= 0) {
      throw new RangeError(`the refresh token lifetime must be a positive number of seconds, not ${options.refreshTokenTtlS}`);
    }
    this.refreshTokenTtlS = options.refreshTokenTtlS;
  }

  async register(registrationToken: string, workerName: string, now: Date): Promise<IssuedWorkerCredentials> {
    assertSecretToken('registration_token', registrationToken);
    const name = validWorkerName(workerName);
    const presentedHash = hashToken(registrationToken);
    const stored = await this.stored(() => this.store.findRegistrationTokenByHash(presentedHash));
    if (stored === null || !sameTokenHash(stored.tokenHash, presentedHash))
      throw new CredentialRejected('unknown-registration-token');
    if (stored.revokedAt !== null) throw new CredentialRejected('registration-token-revoked', { registrationTokenId: stored.id });

    const identity: WorkerIdentity = {
      workerId: `worker-${randomUUID()}`,
      workerGroupId: stored.workerGroupId,
      registrationTokenId: stored.id,
    };
    const refresh = this.newRefreshToken(now);
    const familyId = randomUUID();
    await this.stored(async () => {
      // Last use first: if the store fails in between, no worker exists without it.
      await this.store.markRegistrationTokenUsed(stored.id, now);
      await this.store.createWorker(
        { id: identity.workerId, workerGroupId: identity.workerGroupId, registrationTokenId: identity.registrationTokenId, name },
        { tokenHash: refresh.tokenHash, familyId, expiresAt: refresh.expiresAt },
        now,
      );
    });
    return this.credentials(identity, refresh, now);
  }

  async refresh(refreshToken: string, now: Date): Promise<IssuedWorkerCredentials> {
    assertSecretToken('refresh_token', refreshToken);
    const presentedHash = hashToken(refreshToken);
    const successor = this.newRefreshToken(now);
    const consumed = await this.stored(() =>
      this.store.consumeRefreshToken(presentedHash, { tokenHash: successor.tokenHash, expiresAt: successor.expiresAt }, now),
    );
    if (consumed.outcome === 'unknown' || !sameTokenHash(consumed.token.tokenHash, presentedHash)) {
      throw new CredentialRejected('unknown-refresh-token');
    }
    const { token } = consumed;
    const ids = {
      workerId: token.workerId,
      refreshFamilyId: token.familyId,
      registrationTokenId: token.registrationTokenId ?? undefined,
    };
    switch (consumed.outcome) {
      case 'used':
        // Someone holds a copy of a token that was already exchanged: nothing of this family can be trusted any more.
        await this.stored(() => this.store.revokeRefreshFamily(token.familyId, now));
        throw new CredentialRejected('refresh-token-reused', ids);
      case 'revoked':
        throw new CredentialRejected('refresh-token-revoked', ids);
      case 'expired':
        throw new CredentialRejected('refresh-token-expired', ids);
      case 'rotated':
        break;
    }
    const registrationTokenId = token.registrationTokenId;
    if (registrationTokenId === null || !token.registrationTokenActive) {
      await this.stored(() => this.store.revokeRefreshFamily(token.familyId, now));
      throw new CredentialRejected('registration-token-revoked', ids);
    }
    return this.credentials(
      { workerId: token.workerId, workerGroupId: token.workerGroupId, registrationTokenId },
      successor,
      now,
    );
  }

  private newRefreshToken(now: Date): { token: string; tokenHash: string; expiresAt: Date } {
    const token = generateSecretToken();
    return { token, tokenHash: hashToken(token), expiresAt: new Date(now.getTime() + this.refreshTokenTtlS * 1000) };
  }

  private credentials(identity: WorkerIdentity, refresh: { token: string; expiresAt: Date }, now: Date): IssuedWorkerCredentials {
    const access = this.tokens.issue(identity, now);
    return {
      accessToken: access.token,
      accessExpiresAt: access.expiresAt,
      refreshToken: refresh.token,
      refreshExpiresAt: refresh.expiresAt,
      ...identity,
    };
  }

  /** A store failure is the store's unavailability, never a reason to accept or refuse a token. */
  private async stored<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw new CredentialStoreUnavailable(error);
    }
  }
}

function assertSecretToken(field: string, value: string): void {
  if (typeof value !== 'string' || value === '') throw new InvalidCredentialRequest(field, 'is empty');
  if (!SECRET_TOKEN_PATTERN.test(value)) throw new InvalidCredentialRequest(field, SECRET_TOKEN_FORMAT);
}

function validWorkerName(value: string | undefined): string | null {
  const name = (value ?? '').trim();
  if (name === '') return null;
  if (name.length > MAX_WORKER_NAME_LENGTH) {
    throw new InvalidCredentialRequest(
      'worker_name',
      `is ${name.length} characters long; at most ${MAX_WORKER_NAME_LENGTH} are allowed`,
    );
  }
  // eslint-disable-next-line no-control-regex -- the point is to refuse control characters
  if (/[\u0000-\u001f\u007f]/.test(name)) throw new InvalidCredentialRequest('worker_name', 'contains control characters');
  return name;
}
