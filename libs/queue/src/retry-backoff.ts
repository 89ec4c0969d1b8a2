import type { RetryBackoff } from './queue.port';

export const defaultRetryBackoff: Required<RetryBackoff> = { initialDelayMs: 500, maxDelayMs: 30_000 };

/** Delay before retry number `attempt` (1-based): doubles per attempt, capped. */
export function retryDelayMs(attempt: number, backoff: RetryBackoff = {}): number {
  const initial = backoff.initialDelayMs ?? defaultRetryBackoff.initialDelayMs;
  const cap = backoff.maxDelayMs ?? defaultRetryBackoff.maxDelayMs;
  return Math.min(cap, initial * 2 ** Math.min(attempt - 1, 30));
}

/**
 * Waits `ms` unless `signal` aborts first; never rejects. The timer is cleared on
 * abort so a closing subscription leaves no timer behind.
 */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
