import { ExpressionError, renderTemplate } from './index';
import { expressionFailure } from './testing/expression-failure';

const options = { now: new Date('2026-01-02T03:04:05Z') };
const context = { inputs: { when: '2026-03-15T10:20:30Z', local: '15/03/2026 10:20', named: '15 mars 2026' } };
const render = (template: string): string => renderTemplate(template, context, options);

const failure = (template: string): ExpressionError => expressionFailure(render, template);

// Kestra's date filters: date(format, timeZone, existingFormat, locale), dateAdd(amount, unit,
// format, timeZone, existingFormat, locale), timestamp(timeZone, existingFormat).
describe('date filters with existingFormat and locale', () => {
  it.each([
    // A text in another pattern, read then formatted.
    ["{{ inputs.local | date('yyyy-MM-dd HH:mm', existingFormat='dd/MM/yyyy HH:mm') }}", '2026-03-15 10:20'],
    // Without an offset the text is wall-clock time in the time zone given.
    [
      "{{ inputs.local | date(\"yyyy-MM-dd'T'HH:mmXXX\", timeZone='Europe/Paris', existingFormat='dd/MM/yyyy HH:mm') }}",
      '2026-03-15T10:20+01:00',
    ],
    ["{{ inputs.local | date('HH:mm', existingFormat='dd/MM/yyyy HH:mm', timeZone='Europe/Paris') }}", '10:20'],
    // An offset in the text wins.
    ["{{ '2026-03-15 10:20 +0200' | date('HH:mm', existingFormat='yyyy-MM-dd HH:mm Z') }}", '08:20'],
    ["{{ '03/15/26 09:05 PM' | date('iso_sec', existingFormat='MM/dd/yy hh:mm a') }}", '2026-03-15T21:05:00Z'],
    ["{{ '20260315' | date('yyyy-MM-dd', existingFormat='yyyyMMdd') }}", '2026-03-15'],
    ["{{ 'Mar 15, 2026' | date('yyyy-MM-dd', existingFormat='MMM d, yyyy') }}", '2026-03-15'],
    // Month and day names in a locale, both ways.
    ["{{ inputs.when | date('EEEE d MMMM yyyy', locale='fr') }}", 'dimanche 15 mars 2026'],
    ["{{ inputs.when | date('EEEE d. MMMM', locale='de_DE') }}", 'Sonntag 15. März'],
    ["{{ inputs.named | date('yyyy-MM-dd', existingFormat='d MMMM yyyy', locale='fr') }}", '2026-03-15'],
    ["{{ inputs.when | date('MMMM', locale='en_US') }}", 'March'],
    ["{{ inputs.local | dateAdd(1, 'DAYS', 'yyyy-MM-dd HH:mm', 'UTC', 'dd/MM/yyyy HH:mm') }}", '2026-03-16 10:20'],
    ["{{ inputs.when | dateAdd(1, 'MONTHS', 'MMMM', locale='es') }}", 'abril'],
    ["{{ inputs.local | timestamp(existingFormat='dd/MM/yyyy HH:mm') }}", '1773570000'],
    // java.time's predefined formatters, by Kestra's names.
    ["{{ inputs.when | date('iso_local_date') }}", '2026-03-15'],
    ["{{ inputs.when | date('iso_date', timeZone='Europe/Paris') }}", '2026-03-15+01:00'],
    ["{{ inputs.when | date('iso_local_time') }}", '10:20:30'],
    ["{{ '2026-03-15T10:20:30.120Z' | date('iso_offset_time') }}", '10:20:30.12Z'],
    ["{{ inputs.when | date('iso_local_date_time', timeZone='+05:30') }}", '2026-03-15T15:50:30'],
    ["{{ inputs.when | date('iso_offset_date_time', timeZone='+05:30') }}", '2026-03-15T15:50:30+05:30'],
    ["{{ inputs.when | date('iso_zoned_date_time', timeZone='Europe/Paris') }}", '2026-03-15T11:20:30+01:00[Europe/Paris]'],
    ["{{ inputs.when | date('iso_instant', timeZone='Europe/Paris') }}", '2026-03-15T10:20:30Z'],
    ["{{ inputs.when | date('iso_ordinal_date') }}", '2026-074Z'],
    ["{{ inputs.when | date('iso_week_date') }}", '2026-W11-7Z'],
    ["{{ '2027-01-01T00:00:00Z' | date('iso_week_date') }}", '2026-W53-5Z'],
    ["{{ inputs.when | date('rfc_1123_date_time') }}", 'Sun, 15 Mar 2026 10:20:30 GMT'],
    ["{{ inputs.when | date('sql_seq') }}", '2026-03-15 10:20:30'],
    // Localized styles, as Java's DateTimeFormatter.ofLocalizedDateTime prints them from CLDR.
    ["{{ inputs.when | date('medium') }}", 'Mar 15, 2026, 10:20:30 AM'],
    ["{{ inputs.when | date('short') }}", '3/15/26, 10:20 AM'],
    ["{{ inputs.when | date('long') }}", 'March 15, 2026 at 10:20:30 AM UTC'],
    ["{{ inputs.when | date('medium', timeZone='Europe/Paris', locale='fr') }}", '15 mars 2026, 11:20:30'],
  ])('%s → %s', (template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it('refuses a text that does not match its pattern, naming where it stops', () => {
    const error = failure("{{ inputs.local | date('yyyy', existingFormat='yyyy-MM-dd') }}");
    expect(error.message).toContain("'date' cannot read '15/03/2026 10:20' with the pattern 'yyyy-MM-dd'");
    expect(error.message).toContain('at character');
    expect(error.expression).toBe("{{ inputs.local | date('yyyy', existingFormat='yyyy-MM-dd') }}");
    expect(failure("{{ '2026-02-30' | date('yyyy', existingFormat='yyyy-MM-dd') }}").message).toContain('day 30 is out of range');
    expect(failure("{{ '2026' | date('yyyy', existingFormat='yyyy VV') }}").message).toContain("'V' cannot be read");
  });

  it('refuses a localized style with a fixed offset, which has no zone name to print', () => {
    expect(failure("{{ inputs.when | date('full', timeZone='+02:00') }}").message).toContain(
      "the 'full' style needs a named time zone (Europe/Paris, UTC), not the offset '+02:00'",
    );
  });

  it('refuses a locale that is not a language tag or not known', () => {
    expect(failure("{{ inputs.when | date('MMMM', locale='not a locale') }}").message).toContain('is not a language tag');
    expect(failure("{{ inputs.when | date('MMMM', locale='qqq') }}").message).toContain("the locale 'qqq' is not known");
  });

  it('charges the budget for reading a locale it has not read yet', () => {
    const template =
      "{{ inputs.when | date('MMMM', locale='it') }} {{ inputs.when | date('MMMM', locale='pt') }} {{ inputs.when | date('MMMM', locale='nl') }}";
    expect(() => renderTemplate(template, context, { ...options, limits: { maxSteps: 10_000 } })).toThrow(/steps/);
    // Read once, a locale costs nothing more.
    expect(
      renderTemplate("{{ inputs.when | date('MMMM', locale='it') }}", context, { ...options, limits: { maxSteps: 1_000 } }),
    ).toBe('marzo');
  });
});
