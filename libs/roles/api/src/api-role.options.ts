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
}

export const API_ROLE_OPTIONS = Symbol('lanner.api-role-options');

/** The tenant of the bootstrap admin token. */
export const DEFAULT_TENANT = 'main';
