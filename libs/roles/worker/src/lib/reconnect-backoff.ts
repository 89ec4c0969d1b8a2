/** Reconnect delays: exponential from 1 s to 30 s, jittered, reset after a healthy minute (WORKERS.md). */
export const RECONNECT_BASE_MS = 1_000;
export const RECONNECT_MAX_MS = 30_000;
export const HEALTHY_STREAM_MS = 60_000;

/**
 * The delay before reconnect attempt `failures` (1 for the first failure).
 * "Equal jitter": half the exponential step is kept, the other half is random,
 * so a fleet that lost the same controller does not come back in lockstep.
 * `random` is in [0, 1) and injected so the schedule is testable.
 */
export function reconnectDelayMs(failures: number, random: number): number {
  const step = Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** Math.max(0, failures - 1));
  return Math.round(step / 2 + (step / 2) * random);
}

/**
 * The wait a Reconnect frame asked for, plus up to a fifth more, so workers
 * recycled together do not all land on the next controller at the same instant.
 * Zero stays zero: "at once".
 */
export function recycleDelayMs(delayMs: number, random: number): number {
  return Math.round(delayMs + (delayMs / 5) * random);
}
