import { ExpressionError, renderTemplate } from './index';
import { expressionFailure } from './testing/expression-failure';

const options = { now: new Date('2026-01-02T03:04:05Z') };
const context = { inputs: { n: 3, name: 'ada', users: ['ada', 'grace'] } };
const render = (template: string): string => renderTemplate(template, context, options);

const failure = (template: string): ExpressionError => expressionFailure(render, template);

// Pebble's `a..b` is range(a, b): both ends included, binding looser than + and tighter than ==.
describe('the range operator ..', () => {
  it.each([
    ['{{ 1..3 }}', '[1,2,3]'],
    ['{{ 1 .. 3 }}', '[1,2,3]'],
    ['{% for i in 0..inputs.n %}{{ i }}{% endfor %}', '0123'],
    ['{% for i in 1..inputs.n - 1 %}{{ i }}{% endfor %}', '12'],
    ['{{ (1..4) | length }}', '4'],
    ['{{ 1..3 == [1, 2, 3] }}', 'true'],
    ['{{ 3..1 }}', '[]'],
    ['{{ 1.5 | numberformat("0.0") }}', '1.5'],
    ['{{ inputs.users[0] }}', 'ada'],
  ])('%s → %s', (template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it('keeps range() limits and says what is wrong', () => {
    expect(failure('{{ 1..100000 }}').message).toContain('10,000');
    expect(failure("{{ 1..'a' }}").message).toContain('range');
  });
});

// Pebble's macros: defined anywhere in the template, called like functions; a macro sees its
// arguments (defaults included) and _context, not the template's other names.
describe('macros', () => {
  it.each([
    ['{% macro greet(name, punct="!") %}Hello {{ name }}{{ punct }}{% endmacro %}{{ greet("ada") }}', 'Hello ada!'],
    ['{{ greet(inputs.name, punct="?") }}{% macro greet(name, punct="!") %}Hi {{ name }}{{ punct }}{% endmacro %}', 'Hi ada?'],
    ['{% macro item(x) %}<{{ x | upper }}>{% endmacro %}{% for u in inputs.users %}{{ item(u) }}{% endfor %}', '<ADA><GRACE>'],
    ['{% macro m(a, b) %}{{ a }}-{{ b }}{% endmacro %}{{ m(1) }}', '1-'],
    ['{% macro ctx() %}{{ _context.inputs.name }}{% endmacro %}{{ ctx() }}', 'ada'],
    ['{% macro twice(x) %}{{ x }}{{ x }}{% endmacro %}{{ twice("a") | length }}', '2'],
    ['{% macro count(n) %}{% if n > 0 %}{{ n }}{{ count(n - 1) }}{% endif %}{% endmacro %}{{ count(3) }}', '321'],
    ['{% macro m() %}{% set local = 1 %}{{ local }}{% endmacro %}{{ m() }}{{ local is defined }}', '1false'],
  ])('%s → %s', (template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it('refuses what a macro cannot do, naming the macro', () => {
    expect(failure('{% macro m() %}{{ inputs.name }}{% endmacro %}{{ m() }}').message).toContain(
      "'inputs' is undefined in the macro (a macro sees its arguments only; pass _context for the rest)",
    );
    expect(failure('{% macro m(a) %}{{ a }}{% endmacro %}{{ m(1, 2) }}').message).toContain(
      "the macro 'm' takes 1 argument(s), got 2",
    );
    expect(failure('{% macro m(a) %}{{ a }}{% endmacro %}{{ m(b=1) }}').message).toContain("the macro 'm' has no argument 'b'");
    expect(failure('{% macro loop(n) %}{{ loop(n) }}{% endmacro %}{{ loop(1) }}').message).toContain(
      'macro calls nest deeper than 100',
    );
    expect(failure("{% macro m() %}{{ secret('X') }}{% endmacro %}{{ m() }}").message).toMatch(/secret/);
  });
});
