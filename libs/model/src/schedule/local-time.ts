// The wall-clock parts of an instant in an IANA time zone, through Intl.

export interface LocalParts {
  readonly year: number;
  /** 1-12. */
  readonly month: number;
  readonly day: number;
  /** 0 = Sunday. */
  readonly weekday: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const WEEKDAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      weekday: 'short',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

export function localParts(date: Date, timeZone: string): LocalParts {
  const parts: Record<string, string> = {};
  for (const part of formatterFor(timeZone).formatToParts(date)) parts[part.type] = part.value;
  return {
    year: Number(parts['year']),
    month: Number(parts['month']),
    day: Number(parts['day']),
    weekday: WEEKDAY_NAMES.indexOf(parts['weekday']),
    hour: Number(parts['hour']),
    minute: Number(parts['minute']),
    second: Number(parts['second']),
  };
}

/**
 * `date` as ISO 8601 with the UTC offset it has in `timeZone`
 * (`2026-03-29T03:00:00.000+02:00`), the way a schedule with a `timezone`
 * renders its dates; an offset of zero is written `Z`, as `toISOString` does.
 */
export function zonedIsoString(date: Date, timeZone: string): string {
  const local = localParts(date, timeZone);
  const wholeSeconds = date.getTime() - (((date.getTime() % 1000) + 1000) % 1000);
  const offsetMinutes = Math.round(
    (Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second) - wholeSeconds) / 60_000,
  );
  if (offsetMinutes === 0) return date.toISOString();
  const shifted = new Date(date.getTime() + offsetMinutes * 60_000).toISOString().slice(0, -1);
  const sign = offsetMinutes > 0 ? '+' : '-';
  const magnitude = Math.abs(offsetMinutes);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${shifted}${sign}${pad(Math.floor(magnitude / 60))}:${pad(magnitude % 60)}`;
}
