import { renderFinal, renderTemplate } from './index';

const options = { now: new Date('2026-01-02T03:04:05Z') };
const context = {
  flow: { id: 'nightly-report', namespace: 'company.team' },
  inputs: { region: 'eu', count: 3, tags: ['a', 'b'], empty: '', settings: { retries: 2, mode: 'fast' } },
  outputs: { build: { vars: { path: '/tmp/report.csv' } }, 'fetch-data': { code: 200 } },
  taskrun: { value: 'b' },
};
const render = (template: string): string => renderTemplate(template, context, options);

describe('renderTemplate: Pebble syntax as Kestra flows use it', () => {
  it('reads the execution context', () => {
    expect(render('{{ flow.namespace }}.{{ flow.id }} {{ outputs.build.vars.path }} {{ taskrun.value }}')).toBe(
      'company.team.nightly-report /tmp/report.csv b',
    );
    expect(render("{{ outputs['fetch-data'].code }} {{ inputs.tags[1] }}")).toBe('200 b');
  });

  it('evaluates comparisons, logic and the ternary operator', () => {
    expect(render("{{ inputs.region == 'eu' and inputs.count > 2 }}")).toBe('true');
    expect(render("{{ not (inputs.region == 'eu') or inputs.count != 3 }}")).toBe('false');
    expect(render("{{ inputs.count >= 3 ? 'many' : 'few' }}")).toBe('many');
    expect(render("{{ 'big' if inputs.count > 10 else 'small' }}")).toBe('small');
    expect(render("{{ 'a' in inputs.tags }} {{ 'mode' in inputs.settings }} {{ 'u' in 'eu' }}")).toBe('true true true');
  });

  it('computes with numbers and joins text with ~', () => {
    expect(render('{{ inputs.count * 2 + 1 }} {{ 7 // 2 }} {{ 7 % 4 }} {{ 2 ** 3 }} {{ -inputs.count }}')).toBe('7 3 3 8 -3');
    expect(render("{{ inputs.region ~ '-' ~ inputs.count }}")).toBe('eu-3');
    expect(() => render("{{ inputs.region + 'x' }}")).toThrow("use '~' to join text");
  });

  it('runs if / elseif / else blocks and for loops with Pebble loop variables', () => {
    expect(render('{% if inputs.count > 5 %}big{% elseif inputs.count > 2 %}medium{% else %}small{% endif %}')).toBe('medium');
    expect(render('{% for t in inputs.tags %}{{ loop.index }}={{ t }}{% if not loop.last %},{% endif %}{% endfor %}')).toBe(
      '0=a,1=b',
    );
    expect(render('{% for e in inputs.settings %}{{ e.key }}:{{ e.value }};{% endfor %}')).toBe('retries:2;mode:fast;');
    expect(render('{% for k, v in inputs.settings %}{{ k }}={{ v }} {% endfor %}')).toBe('retries=2 mode=fast ');
    expect(render('{% for t in [] %}x{% else %}none{% endfor %}')).toBe('none');
  });

  it('supports set, literals, tests and whitespace control', () => {
    expect(render("{% set target = inputs.region | upper %}{{ target }}-{{ {'a': 1}.a }}-{{ [1, 2] | length }}")).toBe('EU-1-2');
    expect(render('{{ inputs.empty is empty }} {{ inputs.count is odd }} {{ inputs.tags is iterable }} {{ null is null }}')).toBe(
      'true true true true',
    );
    expect(render("{{ inputs.region is startsWith('e') }}")).toBe('true');
    expect(render('a  {%- if true -%}  b  {%- endif -%}  c')).toBe('abc');
    expect(render("{# a comment #}{{ 'x' }}")).toBe('x');
  });

  it('keeps the text around expressions exactly, newlines included', () => {
    expect(render('line 1 {{ inputs.region }}\nline 2\n')).toBe('line 1 eu\nline 2\n');
  });

  it('prints lists and maps as JSON and booleans and null as Pebble does', () => {
    expect(render('{{ inputs.tags }} {{ inputs.settings }} {{ true }} [{{ null }}]')).toBe(
      '["a","b"] {"retries":2,"mode":"fast"} true []',
    );
  });

  it('writes delimiters a value contains so that the worker restores them', () => {
    expect(renderTemplate('{{ inputs.text }}', { inputs: { text: 'a {{ b }} {% c' } }, options)).toBe(
      "a {{ '{{' }} b }} {{ '{%' }} c",
    );
    expect(render('{% raw %}{{ not rendered }}{% endraw %}')).toBe("{{ '{{' }} not rendered }}");
  });
});

describe('renderFinal: text the executor uses itself', () => {
  it('renders without escaping and refuses secret()', () => {
    const context = { inputs: { text: 'a {{ b }}' } };
    expect(renderFinal('case-{{ inputs.text }}', context, options)).toBe('case-a {{ b }}');
    expect(() => renderFinal("{{ secret('X') }}", context, options)).toThrow(/resolved only on the worker/);
  });
});
