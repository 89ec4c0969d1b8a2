// The periods the dashboard offers, and how its timeline labels a bucket.

export interface Period {
  readonly id: string;
  readonly label: string;
  readonly ms: number;
}

const HOUR = 3_600_000;
export const PERIODS: readonly Period[] = [
  { id: '1h', label: 'Last hour', ms: HOUR },
  { id: '24h', label: 'Last 24 hours', ms: 24 * HOUR },
  { id: '7d', label: 'Last 7 days', ms: 7 * 24 * HOUR },
  { id: '30d', label: 'Last 30 days', ms: 30 * 24 * HOUR },
];
export const DEFAULT_PERIOD = PERIODS[1];

export function periodById(id: string | null): Period {
  return PERIODS.find((period) => period.id === id) ?? DEFAULT_PERIOD;
}

/** A bucket's start as a chart axis shows it: the time of day for buckets under a day, the date otherwise. */
export function bucketLabel(start: string, bucketSeconds: number): string {
  const date = new Date(start);
  return bucketSeconds < 24 * 3600
    ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleDateString([], { month: 'short', day: 'numeric' });
}

/** 0.8333 as "83.3 %"; "—" when there is no rate. */
export function formatRate(rate: number | null): string {
  return rate === null ? '—' : `${(rate * 100).toFixed(1)} %`;
}

/** Milliseconds for people: 850 ms, 12.3 s, 4 min 05 s. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')} s`;
}
