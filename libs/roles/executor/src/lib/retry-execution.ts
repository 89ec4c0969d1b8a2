import type { StoredJson } from '@lanner/model';

/** What the `trigger` column of an execution created by a CREATE_NEW_EXECUTION retry holds. */
export interface RetryOrigin {
  /** The execution that failed and asked for this one. */
  readonly retriedExecutionId: string;
  /** The first execution of the chain; every retry of it counts from there. */
  readonly originalExecutionId: string;
  /** 2 for the first retry, +1 per retry after it. */
  readonly retryAttempt: number;
}

const RETRY_TRIGGER_TYPE = 'retry';

/**
 * `trigger.*` of an execution a trigger started: the `variables` its `trigger`
 * column holds (`{ id, type, variables }`); nothing for any other execution.
 */
export function triggerVariables(trigger: StoredJson): { trigger?: Record<string, StoredJson> } {
  if (trigger === null || typeof trigger !== 'object' || Array.isArray(trigger)) return {};
  const variables = trigger['variables'];
  if (variables === null || typeof variables !== 'object' || Array.isArray(variables)) return {};
  return { trigger: variables };
}

export function retryTrigger(origin: RetryOrigin): StoredJson {
  return { type: RETRY_TRIGGER_TYPE, ...origin };
}

/**
 * The retry counters of an execution read from its `trigger` column, for the
 * state machine's new value (so `maxAttempts` counts across the executions of
 * a chain); nothing for an execution started any other way.
 */
export function retryOrigin(trigger: StoredJson): { retryAttempt?: number; originalExecutionId?: string } {
  if (trigger === null || typeof trigger !== 'object' || Array.isArray(trigger)) return {};
  const { type, originalExecutionId, retryAttempt } = trigger as Record<string, StoredJson>;
  if (type !== RETRY_TRIGGER_TYPE || typeof originalExecutionId !== 'string' || typeof retryAttempt !== 'number') return {};
  return { retryAttempt, originalExecutionId };
}
