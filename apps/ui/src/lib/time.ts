/** A duration for people: 850 ms, 12.3 s, 4 min 05 s; "running" when it has no end yet. */
export function formatDuration(start: string | null, end: string | null, now = Date.now()): string {
  if (!start) return '—';
  const ms = (end ? Date.parse(end) : now) - Date.parse(start);
  const text =
    ms < 1000
      ? `${ms} ms`
      : ms < 60_000
        ? `${(ms / 1000).toFixed(1)} s`
        : `${Math.floor(ms / 60_000)} min ${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')} s`;
  return end ? text : `${text}…`;
}

/** When a state view ended: its end date, else the date it reached its final state (task runs carry no end date of their own). */
export function endOf(
  state: { current: string; histories: { state: string; date: string }[]; endDate: string | null },
  ended: boolean,
): string | null {
  if (state.endDate) return state.endDate;
  return ended ? (state.histories[state.histories.length - 1]?.date ?? null) : null;
}
