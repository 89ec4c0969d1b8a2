import type { WorkerRestartStrategy } from '@lanner/model';
import type { ValidationProblem, WorkerQueue } from '@lanner/worker-selector';
import type { RegistrationTokenSecret, RegistrationTokenSource } from './registration-token';

export type SubscriptionMode = 'STRICT' | 'ELASTIC';
export const SUBSCRIPTION_MODES: readonly SubscriptionMode[] = ['STRICT', 'ELASTIC'];
/** Decision (WORKERS.md): a subscription without `mode` is STRICT. */
export const DEFAULT_SUBSCRIPTION_MODE: SubscriptionMode = 'STRICT';

/** A validated worker queue, ready to be written. */
export interface WorkerQueueSpec extends WorkerQueue {
  tags: string[];
  allowedTenants: string[];
  description?: string;
}

export interface SubscriptionSpec {
  workerQueueId: string;
  /** 1..100; absent means no reserved floor (shared pool only). */
  reservedPercent?: number;
  mode: SubscriptionMode;
}

export interface RegistrationTokenSpec {
  name: string;
  source: RegistrationTokenSource;
  secret: RegistrationTokenSecret;
}

export interface WorkerGroupSpec {
  id: string;
  name: string;
  description?: string;
  /** Absent: unchanged on an existing group, AFTER_TERMINATION_GRACE_PERIOD on a new one. */
  restartStrategy?: WorkerRestartStrategy;
  subscriptions: SubscriptionSpec[];
  /** Only from the declarative setup; the REST API mints tokens itself. */
  registrationTokens: RegistrationTokenSpec[];
}

export type Validation<T> = { ok: true; value: T } | { ok: false; problems: ValidationProblem[] };

/** Thrown by callers that must stop on invalid topology input (e.g. setup at start). */
export class InvalidTopology extends Error {
  constructor(readonly problems: readonly ValidationProblem[]) {
    super(`invalid worker topology:\n${formatProblems(problems)}`);
    this.name = 'InvalidTopology';
  }
}

/** One line per problem: `setup.workerGroups[0].subscriptions[1] references the unknown worker queue 'etl'`. */
export function formatProblems(problems: readonly ValidationProblem[]): string {
  return problems.map((p) => `${p.path} ${p.message}`).join('\n');
}
