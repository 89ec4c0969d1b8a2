import { renderTemplate } from './index';

// The date filter's pattern letters G (era), Q/q (quarter), Y and w (week-based year and its
// week), W (week of the month), e and c (day of the week counted from the locale's first day,
// or its name), as java.time's DateTimeFormatter prints them. Weeks follow WeekFields.of(locale):
// the region's first day and minimal days (the United States' when the locale names no region,
// as Java does, and without a locale).
const now = new Date('2026-03-07T05:04:09.045Z'); // a Saturday
const render = (template: string, context: Record<string, unknown> = {}): string => renderTemplate(template, context, { now });

describe('filters: date prints era, quarter, week and localized day-of-week letters as java.time does', () => {
  it.each([
    ['G', 'AD'],
    ['GGG', 'AD'],
    ['GGGG', 'Anno Domini'],
    ['GGGGG', 'A'],
    ['Q', '1'],
    ['QQ', '01'],
    ['QQQ', 'Q1'],
    ['QQQQ', '1st quarter'],
    ['QQQQQ', '1'],
    ['qqq', 'Q1'],
    // Sunday-first weeks, the first holding January 1st; Saturday is day 7.
    ['e', '7'],
    ['ee', '07'],
    ['eee', 'Sat'],
    ['eeee', 'Saturday'],
    ['eeeee', 'S'],
    ['EEEEE', 'S'],
    ['c', '7'],
    ['ccc', 'Sat'],
    ['cccc', 'Saturday'],
    ['YYYY-ww', '2026-10'],
    ['Y w', '2026 10'],
    ['W', '1'],
  ])('formats %s', (pattern, expected) => {
    expect(render(`{{ now() | date("${pattern}") }}`)).toBe(expected);
  });

  it('names the era and numbers the days in the locale, with the weeks of its region', () => {
    expect(render("{{ now() | date('G GGGG', locale='fr') }}")).toBe('ap. J.-C. après Jésus-Christ');
    expect(render("{{ now() | date('GGGG', locale='de_DE') }}")).toBe('n. Chr.');
    // Germany's weeks start on Monday: Saturday is day 6; the United States': day 7.
    expect(render("{{ now() | date('e c', locale='de_DE') }}")).toBe('6 6');
    expect(render("{{ now() | date('e c', locale='en_US') }}")).toBe('7 7');
    // A locale without a region counts weeks as the United States do, as Java does.
    expect(render("{{ now() | date('e', locale='fr') }}")).toBe('7');
    expect(render("{{ now() | date('eeee', locale='fr') }}")).toBe('samedi');
  });

  it('counts the week-based year and its weeks by the locale: December 31st 2020 is in week 1 of 2021 in the US, week 53 of 2020 in Germany', () => {
    const day = { day: '2020-12-31T12:00:00Z' };
    expect(render("{{ day | date('YYYY-ww') }}", day)).toBe('2021-01');
    expect(render("{{ day | date('YYYY-ww', locale='en_US') }}", day)).toBe('2021-01');
    expect(render("{{ day | date('YYYY-ww', locale='de_DE') }}", day)).toBe('2020-53');
    expect(render("{{ day | date('yyyy YY w') }}", { day: '2024-12-29T00:00:00Z' })).toBe('2024 25 1');
    expect(render("{{ day | date('YYYY-w', locale='en_GB') }}", { day: '2024-12-29T00:00:00Z' })).toBe('2024-52');
  });

  it('follows the ISO week date with Monday-first, four-day first weeks, every day of several years', () => {
    const mismatches: string[] = [];
    for (let at = Date.UTC(2019, 11, 20); at <= Date.UTC(2024, 0, 10); at += 86_400_000) {
      const day = { day: new Date(at).toISOString() };
      const iso = render("{{ day | date('iso_week_date') }}", day).slice(0, 8);
      const weeks = render("{{ day | date(\"YYYY-'W'ww\", locale='de_DE') }}", day);
      if (iso !== weeks) mismatches.push(`${day.day}: ${weeks}, not ${iso}`);
    }
    expect(mismatches).toEqual([]);
  });

  it('numbers the weeks of the month from the first one holding enough of its days; the days before are week 0', () => {
    // March 2026 starts on a Sunday: a whole first week in the US, one day of it in Germany.
    expect(render("{{ day | date('W') }}", { day: '2026-03-01T00:00:00Z' })).toBe('1');
    expect(render("{{ day | date('W') }}", { day: '2026-03-08T00:00:00Z' })).toBe('2');
    expect(render("{{ day | date('W', locale='de_DE') }}", { day: '2026-03-01T00:00:00Z' })).toBe('0');
    expect(render("{{ day | date('W', locale='de_DE') }}", { day: '2026-03-02T00:00:00Z' })).toBe('1');
    expect(render("{{ day | date('W', locale='de_DE') }}", { day: '2026-03-31T00:00:00Z' })).toBe('5');
  });

  it('refuses what java.time refuses, and quarter names it does not know, naming the pattern', () => {
    expect(() => render("{{ now() | date('www') }}")).toThrow("too many pattern letters: 'www' (at most 2)");
    expect(() => render("{{ now() | date('WW') }}")).toThrow("too many pattern letters: 'WW' (at most 1)");
    expect(() => render("{{ now() | date('QQQQQQ') }}")).toThrow("too many pattern letters: 'QQQQQQ' (at most 5)");
    expect(() => render("{{ now() | date('cc') }}")).toThrow("the date pattern 'cc' is not valid");
    expect(() => render("{{ now() | date('QQQQ', locale='fr') }}")).toThrow(
      "the date pattern 'QQQQ' names the quarter, which is known in English only",
    );
  });
});
