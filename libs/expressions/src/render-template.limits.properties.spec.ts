import fc from 'fast-check';
import { ExpressionError, renderTemplate } from './index';

const options = { now: new Date('2026-01-02T03:04:05Z') };
// Small limits, so that a few doublings reach them and each run stays quick.
const limits = { maxTextLength: 20_000, maxListLength: 2_000, maxRenderedLength: 50_000, maxSteps: 5_000, maxRangeLength: 1_000 };
const withLimits = { ...options, limits };

/** One statement that grows `a` (a list) or `s` (a text), or prints something built from them. */
const growth = fc.constantFrom(
  '{% set a = a + a %}',
  '{% set a = [a, a] %}',
  '{% set a = a + [a] %}',
  '{% set s = s ~ s %}',
  '{% set s = a | join(s) %}',
  '{% set s = a | json %}',
  '{% set s = s | replace({"x": s}) %}',
  '{% set a = s | split("") %}',
  '{% set a = a | unique %}',
  '{% set a = a | sort %}',
  '{% set s %}{{ s }}{{ s }}{% endset %}',
  '{% for i in a %}{{ s }}{% endfor %}',
  '{{ a }}',
  '{{ s | upper }}',
  '{{ a == a }}',
);

describe('renderTemplate under any composition of doublings', () => {
  it('renders within the limits or fails with the limit error, never with anything else', () => {
    fc.assert(
      fc.property(fc.array(growth, { minLength: 1, maxLength: 16 }), (statements) => {
        const template = `{% set a = range(1, 20) %}{% set s = 'xy' %}${statements.join('')}`;
        let rendered: string;
        try {
          rendered = renderTemplate(template, {}, withLimits);
        } catch (error) {
          expect(error).toBeInstanceOf(ExpressionError);
          const { reason } = error as ExpressionError;
          // `a | sort` of nested lists and `split` of a printed list are refused for what they are.
          expect(reason).toMatch(
            /exceeds the limit of [\d,]+ (items|characters|numbers)$|does too much work|'sort' sorts numbers or strings|'join' expects|'split' expects|'replace' expects/,
          );
          return;
        }
        expect(rendered.length).toBeLessThanOrEqual(limits.maxRenderedLength);
      }),
      { numRuns: 150 },
    );
  });

  it('fails a doubling with the default limits the same way, for any number of doublings past them', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 7, max: 60 }),
        fc.constantFrom('{% set a = a + a %}', '{% set a = [a, a] %}'),
        (doublings, doubling) => {
          const template = `{% set a = range(0, 9999) %}${doubling.repeat(doublings)}{{ a }}`;
          expect(() => renderTemplate(template, {}, options)).toThrow(/exceeds the limit of [\d,]+ (items|characters)$/);
        },
      ),
      { numRuns: 10 },
    );
  });
});
