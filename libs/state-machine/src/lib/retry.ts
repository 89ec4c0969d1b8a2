// Retry policies (FLOWS.md common task properties; Kestra's semantics where it is silent).
import type { RetryPolicy } from '@lanner/model';
import { hashString } from './persistent-map';
import type { Millis, TaskRunAttempt } from './types';

export function realFailures(attempts: readonly TaskRunAttempt[]): number {
  return attempts.filter((attempt) => attempt.state === 'FAILED').length;
}

/**
 * Kestra: `maxAttempts` counts every attempt (a lost worker's attempt does not
 * use one up); `maxDuration` runs from the first submission; neither set = no limit.
 */
export function retryAllowed(retry: RetryPolicy, attempts: readonly TaskRunAttempt[], now: Millis): boolean {
  const used = attempts.filter((attempt) => attempt.state !== 'RESUBMITTED').length;
  if (retry.maxAttempts !== undefined && used >= retry.maxAttempts) return false;
  const first = attempts[0]?.submittedAt;
  if (retry.maxDurationMs !== undefined && first !== undefined && now - first >= retry.maxDurationMs) return false;
  return true;
}

/** Delay before retry number `failures` (1 = first retry). Random retries derive their draw from `seed`. */
export function retryDelay(retry: RetryPolicy, failures: number, seed: string): number {
  const n = Math.max(1, failures);
  switch (retry.type) {
    case 'constant':
      return retry.intervalMs;
    case 'exponential':
      return Math.min(retry.maxIntervalMs, retry.intervalMs * Math.pow(retry.delayFactor ?? 2, n - 1));
    case 'random': {
      const draw = hashString(seed) / 0x100000000;
      return retry.minIntervalMs + Math.floor(draw * (retry.maxIntervalMs - retry.minIntervalMs));
    }
  }
}
