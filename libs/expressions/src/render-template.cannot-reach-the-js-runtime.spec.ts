import { renderTemplate } from './index';

const options = { now: new Date('2026-01-02T03:04:05Z') };
const context = { inputs: { name: 'x', list: [1] } };

describe('renderTemplate: a template cannot reach the JS runtime', () => {
  const escapes = [
    "{{ ''.constructor.constructor('return process')() }}",
    "{{ ''.constructor.constructor('return process')().exit(1) }}",
    '{{ inputs.constructor }}',
    '{{ inputs.__proto__ }}',
    "{{ inputs['constr' ~ 'uctor'] }}",
    "{{ inputs.list['constructor'] }}",
    '{{ inputs.name.toUpperCase() }}',
    '{{ inputs.name.length }}',
    '{{ range.constructor }}',
    '{{ inputs | constructor }}',
    '{% set constructor = 1 %}',
    "{{ cycler('a') }}",
    '{% include "/etc/passwd" %}',
    '{% macro m() %}{{ inputs.constructor }}{% endmacro %}{{ m() }}',
    '{% macro m() %}{{ inputs.name }}{% endmacro %}{{ m() }}',
  ];

  it.each(escapes)('refuses %s', (template) => {
    const probe = jest.spyOn(process, 'exit').mockImplementation(() => undefined as never);
    try {
      expect(() => renderTemplate(template, context, options)).toThrow(
        /not allowed|is undefined|not supported|unknown (filter|function)/,
      );
      expect(probe).not.toHaveBeenCalled();
    } finally {
      probe.mockRestore();
    }
  });

  it('does not let a template change what the next render sees', () => {
    renderTemplate('{% set inputs = 1 %}{{ inputs }}', context, options);
    expect(renderTemplate('{{ inputs.name }}', context, options)).toBe('x');
    expect(context.inputs.name).toBe('x');
  });

  it('bounds the work a template can make the executor do', () => {
    const loops = '{% for a in range(1, 1000) %}{% for b in range(1, 1000) %}x{% endfor %}{% endfor %}';
    expect(() => renderTemplate(loops, context, options)).toThrow(/too much work/);
  });
});
