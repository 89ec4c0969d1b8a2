/**
 * The `date` filter's formatting: a subset of Java's DateTimeFormatter patterns
 * (what Pebble and Kestra use), written against Date and the runtime's built-in Intl
 * time-zone data. No date library, no clock: the instant is always an argument.
 */

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Kestra's named formats. */
const NAMED_FORMATS: ReadonlyMap<string, string> = new Map([
  ['iso', "yyyy-MM-dd'T'HH:mm:ss.SSSXXX"],
  ['iso8601', "yyyy-MM-dd'T'HH:mm:ss.SSSXXX"],
  ['iso_milli', "yyyy-MM-dd'T'HH:mm:ss.SSSXXX"],
  ['iso_sec', "yyyy-MM-dd'T'HH:mm:ssXXX"],
  ['sql', 'yyyy-MM-dd HH:mm:ss.SSS'],
  ['sql_sec', 'yyyy-MM-dd HH:mm:ss'],
]);

export class DateFormatError extends Error {}

/** The wall-clock fields of an instant in a zone, and the zone's offset at that instant. */
interface ZonedTime {
  /** Fields read with getUTC*: the instant shifted by the offset. */
  readonly wall: Date;
  readonly offsetMinutes: number;
  readonly zoneId: string;
}

const FIXED_OFFSET = /^(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?$/;

function zoned(instant: Date, timeZone: string): ZonedTime {
  if (timeZone === 'UTC' || timeZone === 'Z' || timeZone === 'GMT' || timeZone === 'Etc/UTC') {
    return { wall: instant, offsetMinutes: 0, zoneId: timeZone === 'Z' ? 'UTC' : timeZone };
  }
  const fixed = FIXED_OFFSET.exec(timeZone);
  if (fixed) {
    const minutes = (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) * 60 + Number(fixed[3] ?? 0));
    if (Math.abs(minutes) > 18 * 60) throw new DateFormatError(`the time zone offset '${timeZone}' is out of range`);
    return { wall: new Date(instant.getTime() + minutes * 60_000), offsetMinutes: minutes, zoneId: timeZone };
  }
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    }).formatToParts(instant);
  } catch {
    throw new DateFormatError(`unknown time zone '${timeZone}'`);
  }
  const field = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wallMillis = Date.UTC(
    field('year'),
    field('month') - 1,
    field('day'),
    field('hour'),
    field('minute'),
    field('second'),
    instant.getUTCMilliseconds(),
  );
  const offsetMinutes = Math.round((wallMillis - instant.getTime()) / 60_000);
  return { wall: new Date(wallMillis), offsetMinutes, zoneId: timeZone };
}

function pad(value: number, width: number): string {
  const text = String(Math.abs(value)).padStart(width, '0');
  return value < 0 ? `-${text}` : text;
}

function offsetText(minutes: number, withColon: boolean, minutesAlways: boolean): string {
  const sign = minutes < 0 ? '-' : '+';
  const hours = pad(Math.floor(Math.abs(minutes) / 60), 2);
  const mins = pad(Math.abs(minutes) % 60, 2);
  if (!minutesAlways && mins === '00') return `${sign}${hours}`;
  return withColon ? `${sign}${hours}:${mins}` : `${sign}${hours}${mins}`;
}

function field(letter: string, count: number, time: ZonedTime): string {
  const d = time.wall;
  switch (letter) {
    case 'y':
    case 'u': {
      const year = d.getUTCFullYear();
      return count === 2 ? pad(year % 100, 2) : pad(year, count);
    }
    case 'M':
    case 'L':
      if (count >= 4) return MONTHS[d.getUTCMonth()];
      if (count === 3) return MONTHS[d.getUTCMonth()].slice(0, 3);
      return pad(d.getUTCMonth() + 1, count);
    case 'd':
      return pad(d.getUTCDate(), count);
    case 'D': {
      const dayOfYear = Math.floor((d.getTime() - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
      return pad(dayOfYear, count);
    }
    case 'E':
      return count >= 4 ? WEEKDAYS[d.getUTCDay()] : WEEKDAYS[d.getUTCDay()].slice(0, 3);
    case 'a':
      return d.getUTCHours() < 12 ? 'AM' : 'PM';
    case 'H':
      return pad(d.getUTCHours(), count);
    case 'k':
      return pad(d.getUTCHours() === 0 ? 24 : d.getUTCHours(), count);
    case 'h':
      return pad(d.getUTCHours() % 12 === 0 ? 12 : d.getUTCHours() % 12, count);
    case 'K':
      return pad(d.getUTCHours() % 12, count);
    case 'm':
      return pad(d.getUTCMinutes(), count);
    case 's':
      return pad(d.getUTCSeconds(), count);
    case 'S':
      // Fraction of a second, to `count` digits (a Date holds milliseconds).
      return pad(d.getUTCMilliseconds(), 3).padEnd(count, '0').slice(0, count);
    case 'n':
      return String(d.getUTCMilliseconds() * 1_000_000);
    case 'X':
    case 'x': {
      if (letter === 'X' && time.offsetMinutes === 0) return 'Z';
      if (count === 1) return offsetText(time.offsetMinutes, false, false);
      return offsetText(time.offsetMinutes, count === 3 || count === 5, true);
    }
    case 'Z':
      if (count <= 3) return offsetText(time.offsetMinutes, false, true);
      if (count === 5) return time.offsetMinutes === 0 ? 'Z' : offsetText(time.offsetMinutes, true, true);
      return `GMT${time.offsetMinutes === 0 ? '' : offsetText(time.offsetMinutes, true, true)}`;
    case 'V':
    case 'z':
      return time.zoneId;
    default:
      throw new DateFormatError(`the date pattern letter '${letter}' is not supported`);
  }
}

/** Formats an instant with a Java-style pattern (or a named format) in a time zone (default UTC). */
export function formatDate(instant: Date, pattern: string, timeZone = 'UTC'): string {
  const resolved = NAMED_FORMATS.get(pattern) ?? pattern;
  const time = zoned(instant, timeZone);
  let out = '';
  let i = 0;
  while (i < resolved.length) {
    const c = resolved[i];
    if (c === "'") {
      // 'text' is literal; '' is a quote, inside quoted text or outside it.
      if (resolved[i + 1] === "'") {
        out += "'";
        i += 2;
        continue;
      }
      i++;
      for (;;) {
        if (i >= resolved.length) throw new DateFormatError('the date pattern has an unclosed quote');
        if (resolved[i] === "'" && resolved[i + 1] === "'") {
          out += "'";
          i += 2;
        } else if (resolved[i] === "'") {
          i++;
          break;
        } else {
          out += resolved[i];
          i++;
        }
      }
    } else if (/[A-Za-z]/.test(c)) {
      let count = 1;
      while (resolved[i + count] === c) count++;
      out += field(c, count, time);
      i += count;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** What the `date` filter accepts: a Date, an ISO-8601 string, or epoch seconds (as Kestra's `timestamp` filter yields). */
export function toInstant(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(value * 1000);
  if (typeof value === 'string' && ISO_DATE.test(value.trim())) {
    let text = value.trim().replace(' ', 'T');
    // Without a zone, read the time as UTC (Date would read it as local time).
    if (/T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)) text += 'Z';
    // Date keeps milliseconds only.
    text = text.replace(/(\.\d{3})\d+/, '$1');
    const instant = new Date(text);
    if (!Number.isNaN(instant.getTime())) return instant;
  }
  throw new DateFormatError('expects a date, an ISO-8601 date string or epoch seconds');
}
