import { ExpressionError, renderTemplate } from './index';
import { expressionFailure } from './testing/expression-failure';

const options = { now: new Date('2026-01-02T03:04:05Z') };
const context = { inputs: { evil: `${'a'.repeat(5_000)}!`, long: 'ab'.repeat(400_000) } };
const render = (template: string): string => renderTemplate(template, context, options);

const failure = (template: string): ExpressionError => expressionFailure(render, template);

// Kestra's replace(pairs, regexp=true) is Java's String.replaceAll for each pair in turn.
describe('replace with regexp=true', () => {
  it.each([
    ["{{ 'a1b22c333' | replace({'[0-9]+': '#'}, regexp=true) }}", 'a#b#c#'],
    ["{{ 'a1b22' | replace({'\\\\d': ''}, regexp=true) }}", 'ab'],
    ["{{ '2026-03-15' | replace({'(\\\\d+)-(\\\\d+)-(\\\\d+)': '$3/$2/$1'}, regexp=true) }}", '15/03/2026'],
    ["{{ 'john smith' | replace({'(?<first>\\\\w+) (?<last>\\\\w+)': '${last}, ${first}'}, regexp=true) }}", 'smith, john'],
    ["{{ 'aaa' | replace({'a*?': '-'}, regexp=true) }}", '-a-a-a-'],
    ["{{ 'abc' | replace({'x*': '-'}, regexp=true) }}", '-a-b-c-'],
    ["{{ '<b>x</b><b>y</b>' | replace({'<b>.*?</b>': 'B'}, regexp=true) }}", 'BB'],
    ["{{ '<b>x</b><b>y</b>' | replace({'<b>.*</b>': 'B'}, regexp=true) }}", 'B'],
    ["{{ 'cat dog' | replace({'cat|dog': 'pet'}, regexp=true) }}", 'pet pet'],
    ["{{ 'word words' | replace({'\\\\bword\\\\b': 'W'}, regexp=true) }}", 'W words'],
    ["{{ '  trim  ' | replace({'^\\\\s+|\\\\s+$': ''}, regexp=true) }}", 'trim'],
    ["{{ 'a.b.c' | replace({'[.]': '/'}, regexp=true) }}", 'a/b/c'],
    ["{{ 'price: 5' | replace({'\\\\d': '\\\\$'}, regexp=true) }}", 'price: $'],
    ["{{ 'aXbXc' | replace({'[^X]': '_'}, regexp=true) }}", '_X_X_'],
    ["{{ 'aaaa' | replace({'a{2}': 'b'}, regexp=true) }}", 'bb'],
    ["{{ 'abcabc' | replace({'(a)(b)?c': '[$1$2]'}, regexp=true) }}", '[ab][ab]'],
    ["{{ 'ac' | replace({'(a)(b)?c': '[$2]'}, regexp=true) }}", '[]'],
    // In a list or a map every text is replaced (keys stay), with or without regexp.
    ["{{ ['a1', {'k1': 'b2'}, 3] | replace({'[0-9]': '#'}, regexp=true) }}", '["a#",{"k1":"b#"},"#"]'],
    ["{{ {'a': 'x-y'} | replace({'-': '+'}) }}", '{"a":"x+y"}'],
    // Without regexp the search is plain text.
    ["{{ 'a.b' | replace({'.': '/'}) }}", 'a/b'],
    ["{{ 'a1' | replace({'[0-9]': ''}, regexp=false) }}", 'a1'],
  ])('%s → %s', (template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it('stays linear on patterns that make a backtracking engine explode', () => {
    // (a+)+$ and (a|a)*$ against a run of a's then a '!' take exponential time in Java's engine.
    expect(render("{{ inputs.evil | replace({'(a+)+$': 'x'}, regexp=true) | length }}")).toBe('5001');
    expect(render("{{ inputs.evil | replace({'(a|aa)*b': 'x'}, regexp=true) | length }}")).toBe('5001');
  });

  it('counts its work against the rendering budget', () => {
    const template = "{{ inputs.long | replace({'(a|b)*c': 'x'}, regexp=true) }}";
    expect(() => renderTemplate(template, context, { ...options, limits: { maxSteps: 10_000 } })).toThrow(/steps/);
    // A preferred alternative that runs ahead of each match rescans the text per match (text × matches): stopped too.
    const rescans = "{{ inputs.evil | replace({'a*b|a': 'x'}, regexp=true) }}";
    expect(() => renderTemplate(rescans, context, { ...options, limits: { maxSteps: 20_000 } })).toThrow(/steps/);
  });

  it('refuses what needs backtracking, naming the construct and where', () => {
    expect(failure("{{ 'aa' | replace({'(a)\\\\1': ''}, regexp=true) }}").message).toContain(
      "'replace' the regular expression '(a)\\1' uses a backreference (\\1), which is not supported (at character 4)",
    );
    expect(failure("{{ 'a' | replace({'a(?=b)': ''}, regexp=true) }}").message).toContain('uses a lookaround');
    expect(failure("{{ 'a' | replace({'a++': ''}, regexp=true) }}").message).toContain('possessive quantifier');
    expect(failure("{{ 'a' | replace({'(?i)a': ''}, regexp=true) }}").message).toContain('inline flags');
    expect(failure("{{ 'a' | replace({'(a': ''}, regexp=true) }}").message).toContain("unclosed '('");
    expect(failure("{{ 'a' | replace({'a': '$2'}, regexp=true) }}").message).toContain('refers to group 2');
    expect(failure("{{ 'a' | replace({'a': ''}, regexp='yes') }}").message).toContain("'replace' regexp must be true or false");
    expect(failure(`{{ 'a' | replace({'${'a'.repeat(1001)}': ''}, regexp=true) }}`).message).toContain('at most 1000');
  });
});
