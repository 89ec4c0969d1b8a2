import { ExpressionError, renderFinal, renderTemplate } from './index';
import { expressionFailure } from './testing/expression-failure';

const options = { now: new Date('2026-01-02T03:04:05Z') };
const context = {
  flow: { id: 'hello', namespace: 'company.team' },
  inputs: {
    list: [1, 2, 3, 4, 5],
    nested: [[1, 2], 3, [4]],
    users: [
      { name: 'ada', age: 36 },
      { name: 'grace', age: 85 },
      { name: 'alan', age: 41 },
    ],
    payload: '{"items": [{"id": 1, "ok": true}, {"id": 2, "ok": false}], "total": 2}',
    template: "{{ flow.namespace ~ '/' ~ flow.id }}",
    indirect: '{{ inputs.template }}',
    path: 'data/2026/report.final.csv',
    quote: 'it\'s "quoted"',
    when: '2026-01-31T10:00:00.123456Z',
    nothing: null,
  },
  outputs: { each: { a: { value: 'A' }, b: { value: 'B' } } },
  taskrun: { value: 'b' },
  parents: [],
};
const render = (template: string): string => renderTemplate(template, context, options);

const failure = (template: string): ExpressionError => expressionFailure(render, template);

describe("Kestra's filters", () => {
  it.each([
    ["{{ 'this is a long sentence.' | abbreviate(7) }}", 'this...'],
    ['{{ inputs.list | chunk(2) }}', '[[1,2],[3,4],[5]]'],
    [
      "{{ 'x' | className }} {{ 1 | className }} {{ inputs.list | className }}",
      'java.lang.String java.lang.Long java.util.ArrayList',
    ],
    ["{{ inputs.when | dateAdd(1, 'DAYS', 'yyyy-MM-dd') }}", '2026-02-01'],
    ["{{ inputs.when | dateAdd(1, 'MONTHS', 'yyyy-MM-dd') }}", '2026-02-28'],
    ["{{ inputs.when | dateAdd(-90, 'MINUTES', 'HH:mm') }}", '08:30'],
    ['{{ inputs.when | timestamp }}', '1769853600'],
    ['{{ inputs.when | timestampMilli }}', '1769853600123'],
    ['{{ inputs.when | timestampMicro }}', '1769853600123456'],
    ['{{ inputs.when | timestampNano }}', '1769853600123456000'],
    ["{{ inputs.quote | escapeChar('SINGLE') }}", 'it\\\'s "quoted"'],
    ["{{ inputs.quote | escapeChar('DOUBLE') }}", 'it\'s \\"quoted\\"'],
    ["{{ \"it's\" | escapeChar('SHELL') }}", "it'\\''s"],
    ['{{ inputs.nested | flatten }}', '[1,2,3,4]'],
    ["{{ 'a\nb' | indent(2) }}|{{ 'a\nb' | nindent(2) }}", 'a\n  b|\n  a\n  b'],
    ["{{ {'a': 1, 'b': [true]} | yaml }}", 'a: 1\nb:\n  - true\n'],
    ["{{ inputs.path | startsWith('data/') }} {{ inputs.path | endsWith('.txt') }}", 'true false'],
    ["{{ 'hello' | md5 }}", '5d41402abc4b2a76b9719d911017c592'],
    ["{{ 'hello' | sha1 }}", 'aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d'],
    ["{{ 'hello' | sha256 }}", '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824'],
    ["{{ 'hello' | sha512 | abbreviate(19) }}", '9b71d224bd62f378...'],
    ["{{ 'Hello, Wörld! Déjà vu' | slugify }}", 'hello-world-deja-vu'],
    ["{{ inputs.path | substringBefore('/') }} {{ inputs.path | substringBeforeLast('.') }}", 'data data/2026/report.final'],
    ["{{ inputs.path | substringAfter('/') }} {{ inputs.path | substringAfterLast('.') }}", '2026/report.final.csv csv'],
    ["{{ 'abc' | substringBefore('x') }}|{{ 'abc' | substringAfter('x') }}", 'abc|'],
    ["{{ {'a': 1} | merge({'b': 2}) }} {{ [1] | merge([2]) }}", '{"a":1,"b":2} [1,2]'],
    ['{{ inputs.list | slice(1, 3) }} {{ "hello" | slice(1, 3) }}', '[2,3] el'],
    ['{{ inputs.list | rsort }}', '[5,4,3,2,1]'],
    ["{{ 1234.5 | numberformat('#,##0.00') }}", '1,234.50'],
    ['{{ inputs.nothing | slugify }}|{{ inputs.nothing | chunk(2) }}', '|'],
  ])('%s', (template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it.each([
    ["{{ inputs.payload | jq('.total') | first }}", '2'],
    ["{{ inputs.payload | jq('.items[] | select(.ok) | .id') }}", '[1]'],
    ["{{ inputs.users | jq('map(.age) | add') | first }}", '162'],
    ["{{ inputs.users | jq('[.[] | select(.age > 40) | .name]') | first }}", '["grace","alan"]'],
    ["{{ inputs.users | jq('sort_by(.age) | reverse | .[0].name') | first }}", 'grace'],
    ["{{ inputs.users | jq('.[] | {n: .name, old: (.age >= 80)}') | last }}", '{"n":"alan","old":false}'],
    ["{{ inputs.users | jq('length, (.[0] | keys)') }}", '[3,["age","name"]]'],
    ["{{ {'a': null} | jq('.a // \"fallback\"') | first }}", 'fallback'],
    ["{{ inputs.list | jq('.[1:3]') | first }}", '[2,3]'],
    ['{{ inputs.list | jq(\'.[] | if . % 2 == 0 then "even" else "odd" end\') | join(\',\') }}', 'odd,even,odd,even,odd'],
    ["{{ {'k': 'v'} | jq('to_entries | map(.key + \"=\" + .value) | join(\"&\")') | first }}", 'k=v'],
    ["{{ inputs.users | jq('group_by(.age > 40) | map(length)') | first }}", '[1,2]'],
  ])('jq: %s', (template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it('jq names what it does not support', () => {
    expect(failure("{{ inputs.list | jq('1 + def f: .; f') }}").message).toContain('a definition (def) must start an expression');
    expect(failure("{{ inputs.list | jq('. as [$a] ?// $a | $a') }}").message).toContain(
      'destructuring alternatives (?//) are not supported',
    );
    expect(failure("{{ inputs.list | jq('$nope') }}").message).toContain('$nope is not defined');
    expect(failure("{{ inputs.list | jq('now') }}").message).toContain('now/0 is not available in a template');
    expect(failure("{{ inputs.list | jq('.a') }}").message).toContain('cannot index array with "a"');
    expect(failure("{{ 'not json' | jq('.') }}").message).toContain("'jq' expects JSON text");
    const deep = `${'['.repeat(100)}.${']'.repeat(100)}`;
    expect(failure(`{{ inputs.list | jq('${deep}') }}`).message).toContain("'jq' the expression nests more than 64 levels");
    const long = Array.from({ length: 499 }, () => '.').join(' | ');
    expect(render(`{{ inputs.list | jq('${long}') | first | length }}`)).toBe('5');
    expect(failure(`{{ inputs.list | jq('${long} | ${long}') }}`).message).toContain('more than 1000 tokens');
  });

  it('refuses bad arguments naming the filter and the expression', () => {
    const error = failure("{{ inputs.when | dateAdd(1, 'FORTNIGHTS') }}");
    expect(error.message).toContain("'dateAdd' unit must be one of");
    expect(error.expression).toBe("{{ inputs.when | dateAdd(1, 'FORTNIGHTS') }}");
    expect(failure('{{ inputs.list | chunk(0) }}').message).toContain("'chunk' size must be a whole number");
    expect(failure("{{ 'x' | escapeChar('HTML') }}").message).toContain("'escapeChar' type must be SINGLE, DOUBLE or SHELL");
  });
});

describe("Kestra's functions", () => {
  it.each([
    ['{{ json(inputs.payload).total }} {{ fromJson(inputs.payload).items[1].id }}', '2 2'],
    ["{{ yaml('a: [1, 2]').a[1] }}", '2'],
    ['{{ render(inputs.template) }}', 'company.team/hello'],
    ['{{ renderOnce(inputs.template) }}', 'company.team/hello'],

    ["{{ render('{{ render(inputs.template) | upper }}') }}", 'COMPANY.TEAM/HELLO'],
    ['{{ printContext().flow.id }} {{ printContext() | keys | length > 3 }}', 'hello true'],
    ['{{ currentEachOutput(outputs.each).value }}', 'B'],
  ])('%s', (template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it('renders again while an expression is left; renderOnce() and recursive=false render once', () => {
    const template =
      '{{ render(inputs.indirect) }}|{{ renderOnce(inputs.indirect) }}|{{ render(inputs.indirect, recursive=false) }}';
    expect(renderFinal(template, context, options)).toBe(
      "company.team/hello|{{ flow.namespace ~ '/' ~ flow.id }}|{{ flow.namespace ~ '/' ~ flow.id }}",
    );
    expect(failure("{{ render(inputs.indirect, recursive='yes') }}").message).toContain(
      "render()'s recursive argument must be true or false",
    );
  });

  it('stops a value that renders itself', () => {
    const loop = { vars: { self: '{{ render(vars.self) }}' } };
    expect(() => renderTemplate('{{ render(vars.self) }}', loop, options)).toThrow('render() nests more than 10 levels');
  });

  it('names an unknown function and where it is', () => {
    const error = failure('{{ 1 + kv("KEY") }}');
    expect(error.message).toContain("unknown function 'kv'");
    expect(error.message).toContain('line 1, column 8');
  });
});

describe("Kestra's tests and operators", () => {
  it.each([
    ['{{ inputs.payload is json }} {{ inputs.path is json }} {{ 3 is json }}', 'true false false'],
    ["{{ 'a' equals 'a' }} {{ 1 equals 2 }}", 'true false'],
    ["{{ inputs.list contains 3 }} {{ inputs.path contains 'report' }} {{ {'k': 1} contains 'k' }}", 'true true true'],
    ['{{ inputs.list contains [1, 5] }} {{ inputs.list contains [1, 9] }}', 'true false'],
    ["{{ inputs.nothing ?? 'null-or-undefined' }} {{ inputs.missing ?? 'fallback' }}", 'null-or-undefined fallback'],
    ["{{ inputs.missing ??? 'undefined-only' }}|{{ inputs.nothing ??? 'kept' }}|", 'undefined-only||'],
    ["{{ 3 in inputs.list ? 'yes' : 'no' }}", 'yes'],
    // Pebble divides whole numbers as Java longs.
    ['{{ 7 / 2 }} {{ -7 / 2 }} {{ 7.5 / 2 }} {{ 6 / 3 }}', '3 -3 3.75 2'],
    // A template holding only a comment is a template too.
    ['a{# a note #}b', 'ab'],
  ])('%s', (template, expected) => {
    expect(render(template)).toBe(expected);
  });
});
