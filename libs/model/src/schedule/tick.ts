/**
 * How long the scheduler waits for its next look at the due schedules: until
 * the next whole multiple of `tickMs` on the clock, plus `offsetMs`. Cron
 * dates fall on whole seconds, so a look just after each one finds the
 * schedules that just became due, instead of up to a whole tick later.
 */
export function delayToNextTick(nowMs: number, tickMs: number, offsetMs: number): number {
  return tickMs - (((nowMs % tickMs) + tickMs) % tickMs) + offsetMs;
}

/** What decides when a claimed schedule is evaluated: its stored state and whether a backfill step waits. */
export interface ClaimedScheduleState {
  /** Never evaluated yet (its first date is the next one after its first evaluation). */
  readonly pending: boolean;
  readonly nextDate: Date | null;
  /** A running backfill (due steps, not paused) is stepped at each look, never ahead. */
  readonly backfillRunning: boolean;
}

/**
 * The date a claimed schedule is evaluated as of, and written at. A schedule
 * claimed ahead of its next date is evaluated as of that date (it fires the
 * date's execution, never an earlier one) and written when the clock reaches
 * it; one due or overdue, never evaluated, or with a backfill to step is
 * evaluated as of `now` and written at once.
 */
export function scheduleEvaluationDate(state: ClaimedScheduleState, now: Date): Date {
  if (state.pending || state.backfillRunning || state.nextDate === null || state.nextDate <= now) return now;
  return state.nextDate;
}
