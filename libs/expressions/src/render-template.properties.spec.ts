import fc from 'fast-check';
import { ExpressionError, hasExpression, renderSecrets, renderTemplate } from './index';

const options = { now: new Date('2026-01-02T03:04:05Z') };
const noSecrets = (): string | undefined => undefined;

describe('renderTemplate: properties', () => {
  it('renders text without {{ or {% to itself', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        fc.pre(!hasExpression(text));
        expect(renderTemplate(text, { inputs: {} }, options)).toBe(text);
      }),
    );
  });

  it('is deterministic for the same template, context and now', () => {
    const template =
      "{{ inputs.a | upper }}-{{ now() | date('yyyyMMddHHmmss') }}-{% for x in inputs.list %}{{ x }}{% endfor %}-{{ inputs.m | json }}";
    fc.assert(
      fc.property(
        fc.record({
          a: fc.string(),
          list: fc.array(fc.oneof(fc.integer(), fc.string())),
          m: fc.dictionary(fc.string(), fc.integer()),
        }),
        fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true }),
        (inputs, now) => {
          expect(renderTemplate(template, { inputs }, { now })).toBe(renderTemplate(template, { inputs }, { now }));
        },
      ),
    );
  });

  it('hands any value through the worker pass unchanged, whatever delimiters it holds', () => {
    const delimiterHeavy = fc.string({ unit: fc.constantFrom('{', '}', '%', '#', "'", 'a', ' ', '-', '(', ')') });
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary' }), delimiterHeavy),
        fc.string({ unit: fc.constantFrom('x', '}', ' ') }),
        (value, prefix) => {
          // The value sits right before the kept segment: a trailing '{' must not join it.
          const forWorker = renderTemplate(`${prefix}{{ inputs.value }}{{ secret('S') }}`, { inputs: { value } }, options);
          expect(renderSecrets(forWorker, (name) => (name === 'S' ? 'secret-value' : undefined))).toBe(
            `${prefix}${value}secret-value`,
          );
          expect(renderSecrets(renderTemplate('{{ inputs.value }}', { inputs: { value } }, options), noSecrets)).toBe(value);
        },
      ),
    );
  });

  it('either renders any template or fails with an ExpressionError, never another error', () => {
    const piece = fc.constantFrom(
      '{{',
      '}}',
      '{%',
      '%}',
      '{#',
      '#}',
      ' ',
      'inputs',
      '.',
      'a',
      "'",
      '(',
      ')',
      '|',
      'upper',
      'if',
      'endif',
      'for',
      'in',
      '?',
      ':',
      '??',
      '[',
      ']',
      '{',
      '}',
      "secret('S')",
      '1',
      'not',
      '~',
      '\n',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 16 }), (pieces) => {
        try {
          renderTemplate(pieces.join(''), { inputs: { a: 'x' } }, options);
        } catch (error) {
          expect(error).toBeInstanceOf(ExpressionError);
        }
      }),
    );
  });
});
