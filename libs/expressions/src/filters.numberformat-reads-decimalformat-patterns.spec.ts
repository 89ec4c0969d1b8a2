import { ExpressionError, renderTemplate } from './index';
import { expressionFailure } from './testing/expression-failure';

const options = { now: new Date('2026-01-02T03:04:05Z') };
const render = (template: string): string => renderTemplate(template, {}, options);

const failure = (template: string): ExpressionError => expressionFailure(render, template);

// Pebble's numberformat is Java's DecimalFormat (en_US symbols, HALF_EVEN rounding).
describe('numberformat', () => {
  it.each([
    ['1234.5678', '#,##0.00', '1,234.57'],
    ['1234567.891', '#,##0.###', '1,234,567.891'],
    ['1234567', '#,##,###', '1,234,567'],
    ['1234567', '#,####', '123,4567'],
    ['0.5', '#.##', '.5'],
    ['0', '#.##', '0'],
    ['0.5', '0.00', '0.50'],
    ['7', '000', '007'],
    ['3.14159', '0.0#', '3.14'],
    ['3.1', '0.0#', '3.1'],
    // HALF_EVEN on the exact binary value: 0.125 is a tie, 2.675 is just below 2.675.
    ['0.125', '0.00', '0.12'],
    ['0.375', '0.00', '0.38'],
    ['2.675', '0.00', '2.67'],
    ['2.5', '0', '2'],
    ['3.5', '0', '4'],
    ['-1234.5', '#,##0.00', '-1,234.50'],
    ['-0.001', '0.00', '-0.00'],
    ['-1234.5', '#,##0.00;(#,##0.00)', '(1,234.50)'],
    ['0.256', '0.0%', '25.6%'],
    ['0.0125', '#‰', '12‰'],
    ['12.5', "'#'0.0' units'", '#12.5 units'],
    ['12', "0 'o''clock'", "12 o'clock"],
    ['12', '$#,##0.00', '$12.00'],
    ['1234.5', '0.###E0', '1.234E3'],
    ['0.00012345', '0.00E00', '1.23E-04'],
    ['99999', '0.0E0', '1.0E5'],
    ['12345', '##0.#####E0', '12.345E3'],
    ['12345', '##0.##E0', '12.3E3'],
    ['0.00012345', '##0.##E0', '123E-6'],
    ['0', '0.0E0', '0.0E0'],
    ['123456789012', '#,##0', '123,456,789,012'],
  ])('%s | numberformat(%s) → %s', (value, pattern, expected) => {
    expect(render(`{{ ${value} | numberformat("${pattern.replace(/"/g, '\\"')}") }}`)).toBe(expected);
  });

  it('refuses a pattern it cannot read, naming it', () => {
    expect(failure("{{ 1 | numberformat('abc') }}").message).toContain("'numberformat' the pattern 'abc' has no digit");
    expect(failure("{{ 1 | numberformat('0.00E') }}").message).toContain("needs at least one '0' after 'E'");
    expect(failure("{{ 1 | numberformat('¤#,##0.00') }}").message).toContain("'¤' (currency), which is not supported");
    expect(failure('{{ 1 | numberformat("\'0") }}').message).toContain('has an unclosed quote');
    expect(failure("{{ 'x' | numberformat('0') }}").message).toContain("'numberformat' expects a number, got a string");
  });
});
