import { renderTemplate } from './index';

const now = new Date('2026-03-07T05:04:09.045Z');
const options = { now };
const context = { trigger: { date: '2025-12-31T23:30:00Z', day: '2025-01-02' } };
const render = (template: string): string => renderTemplate(template, context, options);

describe('filters: date formats Java/Pebble patterns', () => {
  it.each([
    ["yyyy-MM-dd'T'HH:mm:ss", '2026-03-07T05:04:09'],
    ['yyyy-MM-dd', '2026-03-07'],
    ['yy/M/d H:m:s', '26/3/7 5:4:9'],
    ['dd.MM.yyyy HH:mm:ss.SSS', '07.03.2026 05:04:09.045'],
    ['EEE, d MMM yyyy', 'Sat, 7 Mar 2026'],
    ['EEEE d MMMM', 'Saturday 7 March'],
    ['hh:mm a', '05:04 AM'],
    ['D', '66'],
    ["'at' HH'h', 'o''clock'", "at 05h, o'clock"],
    ["HH''mm", "05'04"],
    ['XXX', 'Z'],
    ['iso8601', '2026-03-07T05:04:09.045Z'],
  ])('formats %s', (pattern, expected) => {
    expect(render(`{{ now() | date("${pattern}") }}`)).toBe(expected);
  });

  it('formats in a named or fixed time zone', () => {
    expect(render("{{ now() | date('yyyy-MM-dd HH:mm XXX', 'Europe/Paris') }}")).toBe('2026-03-07 06:04 +01:00');
    expect(render("{{ now() | date('HH:mm Z', timeZone='America/New_York') }}")).toBe('00:04 -0500');
    expect(render("{{ now() | date('yyyy-MM-dd HH:mm XXX', '+05:30') }}")).toBe('2026-03-07 10:34 +05:30');
    expect(render("{{ trigger.date | date('yyyy-MM-dd', 'Asia/Tokyo') }}")).toBe('2026-01-01');
  });

  it('reads ISO-8601 text and epoch seconds', () => {
    expect(render("{{ trigger.day | date('EEEE') }}")).toBe('Thursday');
    expect(render("{{ 0 | date('yyyy-MM-dd HH:mm') }}")).toBe('1970-01-01 00:00');
  });

  it('prints now() as ISO-8601 in UTC by default', () => {
    expect(render('{{ now() }}')).toBe('2026-03-07T05:04:09.045Z');
  });

  it('fails clearly on an unknown zone, an unsupported letter, or a non-date', () => {
    expect(() => render("{{ now() | date('HH', 'Mars/Olympus') }}")).toThrow("unknown time zone 'Mars/Olympus'");
    expect(() => render("{{ now() | date('OOOO') }}")).toThrow("the date pattern letter 'O' is not supported");
    expect(() => render("{{ 'yesterday' | date('yyyy') }}")).toThrow('expects a date, an ISO-8601 date string or epoch seconds');
  });
});
