import type { StorageConfig } from '@lanner/storage';

/** What the api role needs beyond the shared adapters. */
export interface ApiRoleOptions {
  /**
   * Internal storage, where FILE inputs are streamed and from where execution files are
   * downloaded (config `LANNER_STORAGE_*`). When absent, FILE inputs are refused (422).
   */
  readonly storage?: StorageConfig;
  /** The largest file one FILE input may be (config `LANNER_FILE_INPUT_MAX_BYTES`); default 1 GiB. */
  readonly fileInputMaxBytes?: number;
  /**
   * Days after its end an execution's files are purged from internal storage (config
   * `LANNER_STORAGE_RETENTION_DAYS`); absent: kept until purged through the API.
   */
  readonly storageRetentionDays?: number;
  /** How often the retention looks for executions past it; default one hour. */
  readonly storageRetentionSweepMs?: number;
  /**
   * The bootstrap admin token (config `LANNER_ADMIN_TOKEN`; standalone passes the
   * one it generated in `./.lanner/admin-token`). Stored hashed at start. When
   * absent, only tokens already stored are accepted.
   */
  readonly adminToken?: string;
  /**
   * How often `?wait=true` and `/follow` re-read an execution when no update
   * arrived (a safety net for a missed `execution.updated`); default 5000 ms.
   */
  readonly followPollMs?: number;
  /**
   * Put before every topic name (e.g. `test-1a2b.`), so that integration specs
   * on a shared broker neither see nor disturb other processes; empty in production.
   */
  readonly topicPrefix?: string;
  /**
   * The YAML file whose `setup` section (worker queues, groups, subscriptions,
   * registration tokens) is applied at start as a seed (config
   * `LANNER_SETUP_FILE`). When it is invalid the role refuses to start.
   */
  readonly setupFile?: string;
  /** Users who log in with a password; without a signing key the login routes answer 503. */
  readonly users?: UserLoginOptions;
}

export interface UserLoginOptions {
  /** Signs the users' access JWTs (config `LANNER_USER_JWT_SIGNING_KEY`; standalone generates one), at least 32 bytes. */
  readonly signingKey?: string;
  /** Lifetime of a user access JWT; default 900 s. */
  readonly accessTokenTtlS?: number;
  /** Lifetime of a refresh token (each refresh issues a new one); default 7 days. */
  readonly refreshTokenTtlS?: number;
  /** Failed logins in a row that lock a user; default 5. */
  readonly maxFailedLogins?: number;
  /** How long a locked user stays locked; default 900 s. */
  readonly lockoutS?: number;
  /** Created as an instance admin of tenant `main` when no user exists yet (standalone's first start). */
  readonly firstAdmin?: { readonly username: string; readonly password: string };
}

export const API_ROLE_OPTIONS = Symbol('lanner.api-role-options');
