import type { Logger } from 'pino';
import type { Endpoint } from '@lanner/runtime';
import { CredentialsFileError, readCredentials, writeCredentials, type StoredCredentials } from './credentials-file';

/** The controller refused what the worker presented (unknown, revoked, expired or reused token). */
export class AuthRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthRefused';
  }
}

/** The auth call did not get an answer (controller down, network, store unavailable): try again later. */
export class AuthUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthUnavailable';
  }
}

/** The worker has no way left to prove who it is; it must stop. The message says what the operator should do. */
export class CredentialsLost extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialsLost';
  }
}

/** WorkerAuthService, as the worker calls it on one controller. Throws AuthRefused or AuthUnavailable. */
export interface AuthCalls {
  register(endpoint: Endpoint, registrationToken: string, workerName: string): Promise<StoredCredentials>;
  refresh(endpoint: Endpoint, refreshToken: string): Promise<StoredCredentials>;
}

export interface WorkerCredentialsOptions {
  /** LANNER_WORKER_CREDENTIALS_PATH. */
  readonly path: string;
  /** LANNER_WORKER_REGISTRATION_TOKEN, when set. */
  readonly registrationToken?: string;
  /** LANNER_WORKER_REFRESH_BUFFER_S, in milliseconds. */
  readonly refreshBufferMs: number;
  readonly workerName: string;
  readonly calls: AuthCalls;
  readonly logger: Logger;
  readonly now?: () => number;
}

interface Held {
  readonly credentials: StoredCredentials;
  /** When this worker got them (for a file read at start: when it was read). */
  readonly obtainedAt: number;
  /** How: read from the file, from a refresh, or from a registration. */
  readonly via: 'file' | 'refresh' | 'register';
}

/**
 * The worker's identity towards controllers: registers once with the
 * registration token, keeps the credentials in a 0600 file, refreshes the
 * access token `refreshBufferMs` before it expires (storing each rotated pair
 * before using it), and falls back to the registration token when a refresh is
 * refused. Auth calls never overlap: a refresh token is single-use, and using
 * one twice would revoke the whole family.
 *
 * Without a registration token and without stored credentials the worker is
 * anonymous (no `authorization` metadata), which only the `default` group accepts.
 */
export class WorkerCredentials {
  private held: Held | undefined;
  /** The controller refused the access token at stream open: the next open refreshes first. */
  private accessRefused = false;
  /** The held token came from a refresh made because a stream refused the one before: no stream accepted it yet. */
  private refreshedAfterRefusal = false;
  private lost: CredentialsLost | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly now: () => number;

  constructor(private readonly options: WorkerCredentialsOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Reads the stored credentials. A broken file is replaced by a new registration when a token is configured. */
  async load(): Promise<void> {
    const { path, registrationToken, logger } = this.options;
    try {
      const stored = await readCredentials(path);
      if (stored) {
        this.held = { credentials: stored, obtainedAt: this.now(), via: 'file' };
        logger.info(
          { workerId: stored.workerId, group: stored.workerGroupId, file: path },
          'using the stored worker credentials',
        );
      } else if (registrationToken) {
        logger.info({ file: path }, 'no stored worker credentials: the worker registers with its registration token');
      } else {
        logger.info('no registration token and no stored credentials: the worker connects anonymously (default group)');
      }
    } catch (error) {
      if (!(error instanceof CredentialsFileError)) throw error;
      if (!registrationToken)
        throw new CredentialsLost(
          `${error.message}; fix or delete it, or set LANNER_WORKER_REGISTRATION_TOKEN so the worker registers again`,
        );
      logger.warn({ file: path }, `${error.message}; the worker registers again with its registration token`);
    }
  }

  /** Whether streams are opened without a token. */
  get anonymous(): boolean {
    return this.held === undefined && !this.options.registrationToken;
  }

  get workerId(): string | undefined {
    return this.held?.credentials.workerId;
  }

  /**
   * The access token to open a stream to `endpoint` with, registering or
   * refreshing on that controller first when needed; undefined for an
   * anonymous worker. Throws AuthUnavailable (retry later) or CredentialsLost (stop).
   */
  accessTokenFor(endpoint: Endpoint): Promise<string | undefined> {
    return this.exclusive(() => this.ensure(endpoint, false));
  }

  /** The controller refused the stream with UNAUTHENTICATED: the next open gets a new access token first. */
  accessTokenRefused(): void {
    if (this.held) this.accessRefused = true;
  }

  /** A controller welcomed a stream opened with the held access token. */
  accessTokenAccepted(): void {
    this.refreshedAfterRefusal = false;
  }

  /** Milliseconds until the access token should be refreshed (0: now); undefined when there is nothing to refresh. */
  msUntilRefresh(): number | undefined {
    if (!this.held || this.lost) return undefined;
    return Math.max(0, this.refreshDueAt(this.held) - this.now());
  }

  /** Refreshes on `endpoint` if the access token is due; for the timer that runs while a stream is open. */
  refreshIfDue(endpoint: Endpoint): Promise<void> {
    return this.exclusive(async () => {
      if (this.held && this.now() >= this.refreshDueAt(this.held)) await this.ensure(endpoint, true);
    });
  }

  /**
   * The access token is refreshed `refreshBufferMs` before it expires, or half
   * way through its life when the buffer is longer than that, so a short-lived
   * token is never refreshed in a loop.
   */
  private refreshDueAt({ credentials, obtainedAt }: Held): number {
    const expiresAt = credentials.accessExpiresAt.getTime();
    const lifetime = Math.max(0, expiresAt - obtainedAt);
    return expiresAt - Math.min(this.options.refreshBufferMs, lifetime / 2);
  }

  private exclusive<T>(step: () => Promise<T>): Promise<T> {
    const result = this.queue.then(step);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async ensure(endpoint: Endpoint, fromTimer: boolean): Promise<string | undefined> {
    if (this.lost) throw this.lost;
    const held = this.held;
    if (!held) {
      if (!this.options.registrationToken) return undefined;
      return (await this.register(endpoint)).accessToken;
    }
    const now = this.now();
    if (!this.accessRefused && now < this.refreshDueAt(held)) return held.credentials.accessToken;
    if (held.credentials.refreshExpiresAt.getTime() <= now) {
      return (await this.registerInstead(endpoint, 'the stored refresh token has expired')).accessToken;
    }
    // A controller refused even the token a refresh just gave (e.g. the refresh
    // token family outlived what the cluster accepts): register again.
    if (this.accessRefused && this.refreshedAfterRefusal && held.via === 'refresh') {
      return (await this.registerInstead(endpoint, 'the controller refused the refreshed access token too')).accessToken;
    }
    try {
      const afterRefusal = this.accessRefused;
      const refreshed = await this.refresh(endpoint, held);
      this.refreshedAfterRefusal = afterRefusal;
      return refreshed.accessToken;
    } catch (error) {
      if (error instanceof AuthRefused) {
        return (
          await this.registerInstead(endpoint, 'the controller refused the refresh token (revoked, expired or already used)')
        ).accessToken;
      }
      // No answer: a still valid access token may yet open a stream; the next attempt refreshes again.
      if (!fromTimer && !this.accessRefused && held.credentials.accessExpiresAt.getTime() > this.now()) {
        this.options.logger.warn(
          { reason: (error as Error).message },
          'could not refresh the access token yet; using the current one',
        );
        return held.credentials.accessToken;
      }
      throw error;
    }
  }

  private async registerInstead(endpoint: Endpoint, why: string): Promise<StoredCredentials> {
    if (!this.options.registrationToken) {
      this.held = undefined;
      this.lost = new CredentialsLost(
        `${why}; the worker has no registration token to register again: create a registration token for its worker group and set LANNER_WORKER_REGISTRATION_TOKEN`,
      );
      throw this.lost;
    }
    this.options.logger.warn(`${why}; registering again with the registration token`);
    return this.register(endpoint);
  }

  private async register(endpoint: Endpoint): Promise<StoredCredentials> {
    const { registrationToken, workerName, calls, logger } = this.options;
    let credentials: StoredCredentials;
    try {
      credentials = await calls.register(endpoint, registrationToken as string, workerName);
    } catch (error) {
      if (!(error instanceof AuthRefused)) throw error;
      // The controller's own words come first: a refusal may be about the client certificate, not the token.
      this.lost = new CredentialsLost(
        `the controller refused the registration (${error.message}); when it names the registration token (unknown, revoked or expired), create a new registration token for the worker group and set LANNER_WORKER_REGISTRATION_TOKEN`,
      );
      throw this.lost;
    }
    await this.keep(credentials, 'register');
    logger.info(
      { workerId: credentials.workerId, group: credentials.workerGroupId, accessExpiresAt: credentials.accessExpiresAt },
      'worker registered',
    );
    return credentials;
  }

  private async refresh(endpoint: Endpoint, held: Held): Promise<StoredCredentials> {
    const credentials = await this.options.calls.refresh(endpoint, held.credentials.refreshToken);
    await this.keep(credentials, 'refresh');
    this.options.logger.info(
      { workerId: credentials.workerId, accessExpiresAt: credentials.accessExpiresAt },
      'worker credentials refreshed',
    );
    return credentials;
  }

  private async keep(credentials: StoredCredentials, via: Held['via']): Promise<void> {
    this.held = { credentials, obtainedAt: this.now(), via };
    this.accessRefused = false;
    try {
      await writeCredentials(this.options.path, credentials);
    } catch (error) {
      // The pair is used anyway (the old refresh token is already spent), but a restart will have to register again.
      const message = error instanceof CredentialsFileError ? error.message : 'the credentials file cannot be written';
      this.options.logger.error(`${message}; a restart will need the registration token again`);
    }
  }
}
