export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface EventuallyOptions {
  /** Give up (and fail, naming what was awaited) after this long. */
  readonly waitMs: number;
  /** How often to ask the probe again; 200 ms unless given. */
  readonly pollMs?: number;
}

const DEFAULT_POLL_MS = 200;

/**
 * The first value other than `undefined` that `probe` gives, asking again every
 * `pollMs`; fails with "timed out waiting for <what>" after `waitMs` (a number
 * is `waitMs`). A probe that throws fails at once: it knows the wait is hopeless.
 */
export async function eventually<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  within: number | EventuallyOptions = 30_000,
): Promise<T> {
  const { waitMs, pollMs = DEFAULT_POLL_MS } = typeof within === 'number' ? { waitMs: within } : within;
  const deadline = Date.now() + waitMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(pollMs);
  }
}
