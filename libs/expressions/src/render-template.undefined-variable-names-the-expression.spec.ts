import { ExpressionError, renderTemplate } from './index';

const options = { now: new Date('2026-01-02T03:04:05.678Z') };
const context = { inputs: { region: 'eu', optional: null }, outputs: { build: { vars: { path: '/r' } } } };

function failure(template: string): ExpressionError {
  try {
    renderTemplate(template, context, options);
  } catch (error) {
    if (error instanceof ExpressionError) return error;
    throw error;
  }
  throw new Error(`expected ${template} to fail`);
}

describe('renderTemplate: an undefined variable fails and names the expression', () => {
  it('names the misspelt path, the segment and its position', () => {
    const error = failure('{{ inputs.regoin }}');
    expect(error.message).toBe("{{ inputs.regoin }} (line 1, column 4): 'inputs.regoin' is undefined");
    expect(error.expression).toBe('{{ inputs.regoin }}');
    expect([error.line, error.column]).toEqual([1, 4]);
  });

  it('points at the right segment on a later line of a script', () => {
    const error = failure('echo start\necho {{ inputs.region }}\necho {{ outputs.biuld.vars.path }}');
    expect(error.expression).toBe('{{ outputs.biuld.vars.path }}');
    expect([error.line, error.column]).toEqual([3, 9]);
    expect(error.reason).toBe("'outputs.biuld' is undefined");
  });

  it('fails on an undefined root variable used in a filter or a condition', () => {
    expect(failure('{{ missing | upper }}').reason).toBe("'missing' is undefined");
    expect(failure("{% if inputs.nope == 'x' %}x{% endif %}").expression).toBe("{% if inputs.nope == 'x' %}");
  });

  it('renders a variable that exists with a null value as nothing', () => {
    expect(renderTemplate('[{{ inputs.optional }}]', context, options)).toBe('[]');
  });

  it('lets default, ?? and "is defined" handle what is missing', () => {
    expect(renderTemplate("{{ missing | default('x') }}", context, options)).toBe('x');
    expect(renderTemplate("{{ inputs.nope.deeper | default('y') }}", context, options)).toBe('y');
    expect(renderTemplate("{{ inputs.nope ?? 'z' }}", context, options)).toBe('z');
    expect(renderTemplate('{% if inputs.nope is defined %}yes{% else %}no{% endif %}', context, options)).toBe('no');
  });

  it('reports a syntax error with its position and no nunjucks internals', () => {
    const error = failure('run {{ inputs.region ');
    expect(error.message).toMatch(/^\{\{ inputs\.region {2}\(line 1, column \d+\): syntax error: expected variable end$/);
    const unclosed = failure('{% if inputs.region %}x');
    expect(unclosed.reason).toBe('syntax error: expected elif, else, or endif, got end of file');
    for (const e of [error, unclosed]) {
      expect(e.message).not.toMatch(/parser|nunjucks|\bat .*\.js/);
      expect(e.stack).not.toMatch(/\.js:\d+/);
    }
  });

  it('refuses an unknown filter or function by name', () => {
    expect(failure('{{ inputs.region | shout }}').reason).toBe("unknown filter 'shout'");
    expect(failure('{{ shout() }}').reason).toBe("unknown function 'shout'");
  });
});
