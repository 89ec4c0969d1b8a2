// Public holidays by country and subdivision, from the date-holidays data set
// (the PublicHoliday condition). Pure: a calendar day in, a yes or no out.

import Holidays from 'date-holidays';

/** A day of the calendar, as the trigger's time zone reads its date. */
export interface CalendarDay {
  readonly year: number;
  /** 1-12. */
  readonly month: number;
  readonly day: number;
}

const calendars = new Map<string, Holidays>();
const publicDays = new Map<string, ReadonlySet<string>>();

/** `DE-BY` and `by` both name Bavaria in Germany; the data set's codes are upper case without the country. */
function subdivisionCode(country: string, subDivision: string | undefined): string | undefined {
  if (subDivision === undefined) return undefined;
  const code = subDivision.trim().toUpperCase();
  return code.startsWith(`${country.toUpperCase()}-`) ? code.slice(country.length + 1) : code;
}

function calendarOf(country: string, subDivision?: string): Holidays {
  const key = `${country}/${subDivision ?? ''}`;
  let calendar = calendars.get(key);
  if (calendar === undefined) {
    calendar = subDivision === undefined ? new Holidays(country) : new Holidays(country, subDivision);
    calendars.set(key, calendar);
  }
  return calendar;
}

/** Why a country or subdivision is not known to the data set; undefined when it is. */
export function unknownHolidayCalendar(country: string, subDivision?: string): string | undefined {
  const countries = new Holidays().getCountries();
  if (!(country.toUpperCase() in countries)) return `unknown country '${country}' (an ISO 3166-1 alpha-2 code, like FR)`;
  const code = subdivisionCode(country, subDivision);
  if (code === undefined) return undefined;
  const states = new Holidays().getStates(country.toUpperCase()) ?? {};
  if (!(code in states)) {
    const known = Object.keys(states).slice(0, 12).join(', ');
    return `unknown subdivision '${subDivision}' of ${country.toUpperCase()}${known === '' ? ' (it has none)' : ` (known: ${known}...)`}`;
  }
  return undefined;
}

/** True when `day` is a public holiday in `country` (and `subDivision`, when given). */
export function isPublicHoliday(country: string, subDivision: string | undefined, day: CalendarDay): boolean {
  const upper = country.toUpperCase();
  const code = subdivisionCode(upper, subDivision);
  const key = `${upper}/${code ?? ''}/${day.year}`;
  let days = publicDays.get(key);
  if (days === undefined) {
    const holidays = calendarOf(upper, code).getHolidays(day.year);
    // `date` is the local day the holiday starts, `YYYY-MM-DD hh:mm:ss`.
    days = new Set(holidays.filter((holiday) => holiday.type === 'public').map((holiday) => holiday.date.slice(0, 10)));
    publicDays.set(key, days);
  }
  const pad = (value: number) => String(value).padStart(2, '0');
  return days.has(`${day.year}-${pad(day.month)}-${pad(day.day)}`);
}
