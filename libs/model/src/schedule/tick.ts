/**
 * How long the scheduler waits for its next look at the due schedules: until
 * the next whole multiple of `tickMs` on the clock, plus `offsetMs`. Cron
 * dates fall on whole seconds, so a look just after each one finds the
 * schedules that just became due, instead of up to a whole tick later.
 */
export function delayToNextTick(nowMs: number, tickMs: number, offsetMs: number): number {
  return tickMs - (((nowMs % tickMs) + tickMs) % tickMs) + offsetMs;
}
