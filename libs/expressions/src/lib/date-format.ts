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
  // Kestra's name for it.
  ['sql_seq', 'yyyy-MM-dd HH:mm:ss'],
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

/**
 * How a locale numbers weeks, as java.time's WeekFields.of(locale) does: the first day of the
 * week (1 Monday … 7 Sunday) and the days of a year or month its first week needs. Java reads
 * them from the locale's region alone, and from the United States' when the locale names none.
 */
interface WeekRules {
  readonly firstDay: number;
  readonly minimalDays: number;
}

const US_WEEKS: WeekRules = { firstDay: 7, minimalDays: 1 };

/** Month, day, era and AM/PM names and the week rules of a locale (Java's `en_US`, `fr` or a BCP 47 tag); English and US weeks without one. */
interface Names {
  readonly months: readonly string[];
  readonly shortMonths: readonly string[];
  readonly weekdays: readonly string[];
  readonly shortWeekdays: readonly string[];
  readonly narrowWeekdays: readonly string[];
  readonly dayPeriods: readonly [string, string];
  /** Before and after the start of the common era: short (`AD`), long (`Anno Domini`), narrow (`A`). */
  readonly eras: {
    readonly short: readonly [string, string];
    readonly long: readonly [string, string];
    readonly narrow: readonly [string, string];
  };
  readonly weeks: WeekRules;
  /** Whether the names are English (quarter names are known in English only). */
  readonly english: boolean;
}

const ENGLISH: Names = {
  months: MONTHS,
  shortMonths: MONTHS.map((name) => name.slice(0, 3)),
  weekdays: WEEKDAYS,
  shortWeekdays: WEEKDAYS.map((name) => name.slice(0, 3)),
  narrowWeekdays: WEEKDAYS.map((name) => name.slice(0, 1)),
  dayPeriods: ['AM', 'PM'],
  eras: { short: ['BC', 'AD'], long: ['Before Christ', 'Anno Domini'], narrow: ['B', 'A'] },
  weeks: US_WEEKS,
  english: true,
};

const LOCALE_TAG = /^[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8})*$/;

/**
 * Names already read, by tag: reading a locale's names from Intl takes milliseconds, and they
 * never change, so a few are kept (a pure function's results; nothing a template can see).
 */
const LOADED = new Map<string, Names>();
const MAX_LOADED = 32;

/** Whether reading `locale`'s names is free (English, or read before): the filter charges the budget otherwise. */
export function localeLoaded(locale: string | undefined): boolean {
  return locale === undefined || locale === '' || LOADED.has(locale);
}

/** The names of a locale, read from the runtime's Intl data; a tag it does not know fails. */
export function localeNames(locale: string | undefined): Names {
  if (locale === undefined || locale === '') return ENGLISH;
  const known = LOADED.get(locale);
  if (known !== undefined) return known;
  const names = readLocaleNames(locale);
  if (LOADED.size >= MAX_LOADED) LOADED.delete(LOADED.keys().next().value as string);
  LOADED.set(locale, names);
  return names;
}

function readLocaleNames(locale: string): Names {
  if (!LOCALE_TAG.test(locale)) throw new DateFormatError(`the locale '${locale}' is not a language tag (write 'fr' or 'en_US')`);
  const tag = locale.replace(/_/g, '-');
  let supported: string[];
  try {
    supported = Intl.DateTimeFormat.supportedLocalesOf([tag]);
  } catch {
    throw new DateFormatError(`the locale '${locale}' is not a language tag (write 'fr' or 'en_US')`);
  }
  if (supported.length === 0) throw new DateFormatError(`the locale '${locale}' is not known`);
  // One formatter per kind of name, asked for each month, day or half of the day.
  const namer = (options: Intl.DateTimeFormatOptions, type: string): ((at: Date) => string) => {
    const formatter = new Intl.DateTimeFormat(tag, { ...options, timeZone: 'UTC' });
    return (at) => formatter.formatToParts(at).find((part) => part.type === type)?.value ?? '';
  };
  const months = MONTHS.map((_m, i) => new Date(Date.UTC(2021, i, 15)));
  // 2021-08-01 was a Sunday.
  const days = WEEKDAYS.map((_d, i) => new Date(Date.UTC(2021, 7, 1 + i, 12)));
  const period = namer({ hour: 'numeric', hour12: true }, 'dayPeriod');
  const half = (hour: number): string => period(new Date(Date.UTC(2021, 0, 1, hour))) || (hour < 12 ? 'AM' : 'PM');
  const beforeEra = new Date(Date.UTC(2021, 5, 15));
  beforeEra.setUTCFullYear(-100);
  const eraNames = (era: 'short' | 'long' | 'narrow'): readonly [string, string] => {
    const name = namer({ era, year: 'numeric' }, 'era');
    return [name(beforeEra), name(months[5] as Date)];
  };
  return {
    months: months.map(namer({ month: 'long', day: 'numeric' }, 'month')),
    shortMonths: months.map(namer({ month: 'short', day: 'numeric' }, 'month')),
    weekdays: days.map(namer({ weekday: 'long' }, 'weekday')),
    shortWeekdays: days.map(namer({ weekday: 'short' }, 'weekday')),
    narrowWeekdays: days.map(namer({ weekday: 'narrow' }, 'weekday')),
    dayPeriods: [half(9), half(21)],
    eras: { short: eraNames('short'), long: eraNames('long'), narrow: eraNames('narrow') },
    weeks: weekRules(tag),
    english: new Intl.Locale(tag).language === 'en',
  };
}

/** The week rules of the locale's region (the United States' when it names none), from the runtime's CLDR data. */
function weekRules(tag: string): WeekRules {
  const region = new Intl.Locale(tag).region;
  if (region === undefined) return US_WEEKS;
  const regional = new Intl.Locale(`und-${region}`) as Intl.Locale & {
    readonly weekInfo?: WeekRules;
    getWeekInfo?(): WeekRules;
  };
  const info = typeof regional.getWeekInfo === 'function' ? regional.getWeekInfo() : regional.weekInfo;
  if (info === undefined) throw new DateFormatError(`the runtime has no week data for the locale '${tag}'`);
  return { firstDay: info.firstDay, minimalDays: info.minimalDays };
}

const DAY = 86_400_000;

/** The day of the week counted from the locale's first day: 1 on that day … 7 (Java's localized day-of-week). */
function localizedDayOfWeek(wall: Date, weeks: WeekRules): number {
  const isoDay = wall.getUTCDay() === 0 ? 7 : wall.getUTCDay();
  return ((isoDay - weeks.firstDay + 7) % 7) + 1;
}

/** Midnight (UTC wall clock) of the day of `wall`. */
function dayStart(wall: Date): number {
  return Date.UTC(wall.getUTCFullYear(), wall.getUTCMonth(), wall.getUTCDate());
}

/**
 * The first day of week 1 of the period (a year or a month) that starts on `first`: the week
 * holding `first` when it has at least `minimalDays` days of the period, else the next week.
 */
function firstWeekStart(first: number, weeks: WeekRules): number {
  const dayOfWeek = localizedDayOfWeek(new Date(first), weeks);
  const daysInPeriod = 8 - dayOfWeek;
  return daysInPeriod >= weeks.minimalDays ? first - (dayOfWeek - 1) * DAY : first + daysInPeriod * DAY;
}

/** Java's week-based year and week of it (pattern letters `Y` and `w`) under the locale's week rules. */
function weekOfWeekBasedYear(wall: Date, weeks: WeekRules): { year: number; week: number } {
  const day = dayStart(wall);
  const year = wall.getUTCFullYear();
  const startOf = (y: number): number => {
    const first = new Date(Date.UTC(2000, 0, 1));
    first.setUTCFullYear(y);
    return firstWeekStart(first.getTime(), weeks);
  };
  const next = startOf(year + 1);
  if (day >= next) return { year: year + 1, week: 1 };
  const own = startOf(year);
  const basedYear = day >= own ? year : year - 1;
  const start = day >= own ? own : startOf(year - 1);
  return { year: basedYear, week: Math.floor((day - start) / (7 * DAY)) + 1 };
}

/** Java's week of the month (pattern letter `W`): 0 for the days before the month's first week. */
function weekOfMonth(wall: Date, weeks: WeekRules): number {
  const day = dayStart(wall);
  const start = firstWeekStart(Date.UTC(wall.getUTCFullYear(), wall.getUTCMonth(), 1), weeks);
  return day < start ? 0 : Math.floor((day - start) / (7 * DAY)) + 1;
}

const QUARTER_ORDINALS = ['1st', '2nd', '3rd', '4th'];

/** Refuses more letters than java.time accepts for `letter`. */
function atMost(letter: string, count: number, max: number): void {
  if (count > max) throw new DateFormatError(`too many pattern letters: '${letter.repeat(count)}' (at most ${max})`);
}

function field(letter: string, count: number, time: ZonedTime, names: Names): string {
  const d = time.wall;
  switch (letter) {
    case 'y':
    case 'u': {
      const year = d.getUTCFullYear();
      return count === 2 ? pad(year % 100, 2) : pad(year, count);
    }
    case 'M':
    case 'L':
      if (count >= 4) return names.months[d.getUTCMonth()];
      if (count === 3) return names.shortMonths[d.getUTCMonth()];
      return pad(d.getUTCMonth() + 1, count);
    case 'd':
      return pad(d.getUTCDate(), count);
    case 'D': {
      const dayOfYear = Math.floor((d.getTime() - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
      return pad(dayOfYear, count);
    }
    case 'E':
      atMost(letter, count, 5);
      if (count === 5) return names.narrowWeekdays[d.getUTCDay()];
      return count === 4 ? names.weekdays[d.getUTCDay()] : names.shortWeekdays[d.getUTCDay()];
    case 'e':
    case 'c': {
      // The day of the week as a number counted from the locale's first day, or its name.
      atMost(letter, count, 5);
      if (letter === 'c' && count === 2) throw new DateFormatError("the date pattern 'cc' is not valid (write 'c' or 'ccc')");
      if (count <= 2) return pad(localizedDayOfWeek(d, names.weeks), count);
      if (count === 3) return names.shortWeekdays[d.getUTCDay()];
      return count === 4 ? names.weekdays[d.getUTCDay()] : names.narrowWeekdays[d.getUTCDay()];
    }
    case 'G': {
      atMost(letter, count, 5);
      const era = d.getUTCFullYear() > 0 ? 1 : 0;
      return (count <= 3 ? names.eras.short : count === 4 ? names.eras.long : names.eras.narrow)[era];
    }
    case 'Q':
    case 'q': {
      atMost(letter, count, 5);
      const quarter = Math.floor(d.getUTCMonth() / 3) + 1;
      if (count <= 2) return pad(quarter, count);
      if (count === 5) return String(quarter);
      if (!names.english) {
        throw new DateFormatError(`the date pattern '${letter.repeat(count)}' names the quarter, which is known in English only`);
      }
      return count === 3 ? `Q${quarter}` : `${QUARTER_ORDINALS[quarter - 1]} quarter`;
    }
    case 'Y': {
      const { year } = weekOfWeekBasedYear(d, names.weeks);
      return count === 2 ? pad(year % 100, 2) : pad(year, count);
    }
    case 'w':
      atMost(letter, count, 2);
      return pad(weekOfWeekBasedYear(d, names.weeks).week, count);
    case 'W':
      atMost(letter, count, 1);
      return String(weekOfMonth(d, names.weeks));
    case 'a':
      return names.dayPeriods[d.getUTCHours() < 12 ? 0 : 1];
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

/** A pattern's pieces: literal text, or a letter repeated `count` times. */
type PatternPiece = { readonly text: string } | { readonly letter: string; readonly count: number };

function patternPieces(pattern: string): PatternPiece[] {
  const resolved = NAMED_FORMATS.get(pattern) ?? pattern;
  const pieces: PatternPiece[] = [];
  let out = '';
  const flush = (): void => {
    if (out !== '') pieces.push({ text: out });
    out = '';
  };
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
      flush();
      pieces.push({ letter: c, count });
      i += count;
    } else {
      out += c;
      i++;
    }
  }
  flush();
  return pieces;
}

/** Java's localized styles (`DateTimeFormatter.ofLocalizedDateTime`), from the runtime's CLDR data as Java's are. */
const STYLES: ReadonlySet<string> = new Set(['full', 'long', 'medium', 'short']);

function styled(instant: Date, style: string, timeZone: string, locale: string | undefined): string {
  if (FIXED_OFFSET.test(timeZone) && !/^(UTC|GMT)$/.test(timeZone)) {
    throw new DateFormatError(`the '${style}' style needs a named time zone (Europe/Paris, UTC), not the offset '${timeZone}'`);
  }
  localeNames(locale);
  const tag = locale === undefined || locale === '' ? 'en-US' : locale.replace(/_/g, '-');
  const zone = timeZone === 'Z' ? 'UTC' : timeZone;
  const option = style as 'full' | 'long' | 'medium' | 'short';
  try {
    return new Intl.DateTimeFormat(tag, { dateStyle: option, timeStyle: option, timeZone: zone }).format(instant);
  } catch {
    throw new DateFormatError(`unknown time zone '${timeZone}'`);
  }
}

/** The fraction of a second as java.time's ISO formatters print it: none when zero, else without trailing zeros. */
function isoFraction(time: ZonedTime): string {
  const millis = time.wall.getUTCMilliseconds();
  return millis === 0 ? '' : `.${pad(millis, 3).replace(/0+$/, '')}`;
}

function isoOffset(time: ZonedTime): string {
  return time.offsetMinutes === 0 ? 'Z' : offsetText(time.offsetMinutes, true, true);
}

/** The ISO week-based year, week and day of the wall-clock date (Monday first, week 1 holds the first Thursday). */
function isoWeek(wall: Date): { year: number; week: number; day: number } {
  const day = wall.getUTCDay() === 0 ? 7 : wall.getUTCDay();
  const thursday = new Date(Date.UTC(wall.getUTCFullYear(), wall.getUTCMonth(), wall.getUTCDate() + 4 - day));
  const year = thursday.getUTCFullYear();
  const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * 86_400_000)) + 1;
  return { year, week, day };
}

/** java.time's predefined ISO and RFC formatters, by the names Kestra gives them. */
const ISO_FORMATS: ReadonlyMap<string, (time: ZonedTime, timeZone: string) => string> = new Map<
  string,
  (time: ZonedTime, timeZone: string) => string
>([
  ['iso_local_date', (t) => formatPieces(t, 'yyyy-MM-dd')],
  ['iso_date', (t) => formatPieces(t, 'yyyy-MM-dd') + isoOffset(t)],
  ['iso_local_time', (t) => formatPieces(t, 'HH:mm:ss') + isoFraction(t)],
  ['iso_time', (t) => formatPieces(t, 'HH:mm:ss') + isoFraction(t) + isoOffset(t)],
  ['iso_offset_time', (t) => formatPieces(t, 'HH:mm:ss') + isoFraction(t) + isoOffset(t)],
  ['iso_local_date_time', (t) => formatPieces(t, "yyyy-MM-dd'T'HH:mm:ss") + isoFraction(t)],
  ['iso_offset_date_time', (t) => formatPieces(t, "yyyy-MM-dd'T'HH:mm:ss") + isoFraction(t) + isoOffset(t)],
  [
    'iso_date_time',
    (t, zone) =>
      formatPieces(t, "yyyy-MM-dd'T'HH:mm:ss") + isoFraction(t) + isoOffset(t) + (FIXED_OFFSET.test(zone) ? '' : `[${t.zoneId}]`),
  ],
  [
    'iso_zoned_date_time',
    (t, zone) =>
      formatPieces(t, "yyyy-MM-dd'T'HH:mm:ss") + isoFraction(t) + isoOffset(t) + (FIXED_OFFSET.test(zone) ? '' : `[${t.zoneId}]`),
  ],
  ['iso_ordinal_date', (t) => formatPieces(t, 'yyyy-DDD') + isoOffset(t)],
  [
    'iso_week_date',
    (t) => {
      const { year, week, day } = isoWeek(t.wall);
      return `${pad(year, 4)}-W${pad(week, 2)}-${day}${isoOffset(t)}`;
    },
  ],
  [
    'rfc_1123_date_time',
    (t) =>
      formatPieces(t, 'EEE, d MMM yyyy HH:mm:ss ') + (t.offsetMinutes === 0 ? 'GMT' : offsetText(t.offsetMinutes, false, true)),
  ],
]);

function formatPieces(time: ZonedTime, pattern: string, names: Names = ENGLISH): string {
  return patternPieces(pattern)
    .map((piece) => ('text' in piece ? piece.text : field(piece.letter, piece.count, time, names)))
    .join('');
}

/** Formats an instant with a Java-style pattern (or a named format) in a time zone (default UTC), names in `locale`. */
export function formatDate(instant: Date, pattern: string, timeZone = 'UTC', locale?: string): string {
  if (STYLES.has(pattern)) return styled(instant, pattern, timeZone, locale);
  const iso = ISO_FORMATS.get(pattern);
  if (iso !== undefined) return iso(zoned(instant, timeZone), timeZone);
  if (pattern === 'iso_instant') {
    const utc = zoned(instant, 'UTC');
    return formatPieces(utc, "yyyy-MM-dd'T'HH:mm:ss") + isoFraction(utc) + 'Z';
  }
  const time = zoned(instant, timeZone);
  const names = localeNames(locale);
  return patternPieces(pattern)
    .map((piece) => ('text' in piece ? piece.text : field(piece.letter, piece.count, time, names)))
    .join('');
}

/**
 * Reads a date written with a Java-style pattern (`existingFormat`): the fields the
 * pattern names, the others from 1970-01-01T00:00; without an offset in the text, the
 * wall-clock time is read in `timeZone`. Month and day names in `locale`.
 */
export function parseDate(text: string, pattern: string, timeZone = 'UTC', locale?: string): Date {
  const names = localeNames(locale);
  const fields: Record<string, number> = {};
  let offsetMinutes: number | undefined;
  let at = 0;
  const fail = (what: string): never => {
    throw new DateFormatError(`cannot read '${text}' with the pattern '${pattern}': ${what} at character ${at + 1}`);
  };
  const digits = (min: number, max: number, what: string): number => {
    const match = new RegExp(`^[+-]?\\d{${min},${max}}`).exec(text.slice(at));
    if (!match) fail(`expected ${what}`);
    at += (match as RegExpExecArray)[0].length;
    return Number((match as RegExpExecArray)[0]);
  };
  const oneOf = (choices: readonly string[], what: string): number => {
    const rest = text.slice(at).toLowerCase();
    let best = -1;
    choices.forEach((choice, index) => {
      if (choice !== '' && rest.startsWith(choice.toLowerCase()) && (best < 0 || choice.length > choices[best].length))
        best = index;
    });
    if (best < 0) fail(`expected ${what}`);
    at += choices[best].length;
    return best;
  };
  const pieces = patternPieces(pattern);
  const numeric = (piece: PatternPiece | undefined): boolean =>
    piece !== undefined &&
    'letter' in piece &&
    (/[yudHkhKmsS]/.test(piece.letter) || (/[ML]/.test(piece.letter) && piece.count < 3));
  for (const piece of pieces) {
    if ('letter' in piece && !/[yuMLdEHkhKamsSXxZ]/.test(piece.letter))
      throw new DateFormatError(`the date pattern letter '${piece.letter}' cannot be read (existingFormat)`);
  }
  pieces.forEach((piece, index) => {
    if ('text' in piece) {
      if (!text.startsWith(piece.text, at)) fail(`expected '${piece.text}'`);
      at += piece.text.length;
      return;
    }
    const { letter, count } = piece;
    // Next to another number field a field has exactly its width (yyyyMMdd); else 1 or 2 digits, a year up to 9.
    const fixed = numeric(pieces[index + 1]);
    const width = count > 1 ? count : 1;
    const max = fixed ? count : letter === 'y' || letter === 'u' ? 9 : Math.max(2, count);
    switch (letter) {
      case 'y':
      case 'u': {
        const year = digits(count === 2 ? 2 : width, count === 2 ? 2 : max, 'a year');
        fields['year'] = count === 2 ? 2000 + year : year;
        break;
      }
      case 'M':
      case 'L':
        if (count >= 4) fields['month'] = oneOf(names.months, 'a month name') + 1;
        else if (count === 3) fields['month'] = oneOf(names.shortMonths, 'a month name') + 1;
        else fields['month'] = digits(width, max, 'a month');
        break;
      case 'd':
        fields['day'] = digits(width, max, 'a day');
        break;
      case 'E':
        oneOf(count >= 4 ? names.weekdays : names.shortWeekdays, 'a day name');
        break;
      case 'H':
      case 'k':
        fields['hour'] = digits(width, max, 'an hour') % 24;
        break;
      case 'h':
      case 'K':
        fields['hour12'] = digits(width, max, 'an hour') % 12;
        break;
      case 'a':
        fields['pm'] = oneOf(names.dayPeriods, 'AM or PM');
        break;
      case 'm':
        fields['minute'] = digits(width, max, 'minutes');
        break;
      case 's':
        fields['second'] = digits(width, max, 'seconds');
        break;
      case 'S': {
        const start = at;
        digits(count, count, 'a fraction of a second');
        fields['millis'] = Number(text.slice(start, at).padEnd(3, '0').slice(0, 3));
        break;
      }
      case 'X':
      case 'x':
      case 'Z': {
        if (letter !== 'x' && text[at] === 'Z') {
          at += 1;
          offsetMinutes = 0;
          break;
        }
        const match = /^([+-])(\d{2}):?(\d{2})?/.exec(text.slice(at));
        if (!match) fail('expected an offset');
        const [whole, sign, hours, minutes] = match as RegExpExecArray;
        at += whole.length;
        offsetMinutes = (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes ?? 0));
        break;
      }
    }
  });
  if (at !== text.length) fail('unexpected text');
  const hour = fields['hour'] ?? (fields['hour12'] ?? 0) + (fields['pm'] === 1 ? 12 : 0);
  const month = fields['month'] ?? 1;
  const day = fields['day'] ?? 1;
  if (month < 1 || month > 12) throw new DateFormatError(`cannot read '${text}': month ${month} is out of range`);
  const wall = Date.UTC(
    fields['year'] ?? 1970,
    month - 1,
    day,
    hour,
    fields['minute'] ?? 0,
    fields['second'] ?? 0,
    fields['millis'] ?? 0,
  );
  if (new Date(wall).getUTCDate() !== day) throw new DateFormatError(`cannot read '${text}': day ${day} is out of range`);
  if (offsetMinutes !== undefined) return new Date(wall - offsetMinutes * 60_000);
  // The wall-clock time in the zone: its offset at that time (checked once more across a change).
  let guess = wall - zoned(new Date(wall), timeZone).offsetMinutes * 60_000;
  guess = wall - zoned(new Date(guess), timeZone).offsetMinutes * 60_000;
  return new Date(guess);
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
