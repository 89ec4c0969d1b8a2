import { EXPRESSION_LIMITS, ExpressionError, renderFinal, renderList, renderSecrets, renderTemplate, renderValue } from './index';

const options = { now: new Date('2026-01-02T03:04:05Z') };

function failureOf(render: () => unknown): ExpressionError {
  try {
    render();
  } catch (error) {
    if (error instanceof ExpressionError) return error;
    throw error;
  }
  throw new Error('expected the rendering to fail');
}

/** `{% set a = range(0, 9999) %}`, then `doublings` lines of `{% set a = a + a %}`, then the length. */
function doublingTemplate(doublings: number): string {
  return [
    '{% set a = range(0, 9999) %}',
    ...Array.from({ length: doublings }, () => '{% set a = a + a %}'),
    '{{ a | length }}',
  ].join('\n');
}

describe('renderTemplate refuses to build a value over the limits, naming the expression and the limit', () => {
  it('stops doubling a list at the limit instead of growing it until the process dies', () => {
    // 10,000 items doubled: the 7th doubling (line 8) would make 1,280,000.
    const error = failureOf(() => renderTemplate(doublingTemplate(14), {}, options));

    expect(error.expression).toBe('{% set a = a + a %}');
    expect(error.line).toBe(8);
    expect(error.reason).toBe("'+' would build a list of 1,280,000 items, which exceeds the limit of 1,000,000 items");
    expect(error.message).toMatch(/^\{% set a = a \+ a %\} \(line 8, column \d+\): '\+' would build a list of 1,280,000 items/);
  });

  it('renders the same doubling while it stays under the limit', () => {
    expect(renderTemplate(doublingTemplate(6), {}, options).trim()).toBe('640000');
  });

  it('stops doubling a text joined with ~ at the text limit', () => {
    const template = `{% set s = 'xxxxxxxxxx' %}${'{% set s = s ~ s %}'.repeat(30)}{{ s | length }}`;
    // 10 characters doubled 19 times: 5,242,880.
    expect(failureOf(() => renderTemplate(template, {}, options)).reason).toBe(
      "'~' would build a text of 5,242,880 characters, which exceeds the limit of 5,000,000 characters",
    );
  });

  it('refuses a join whose result would pass the text limit, before joining', () => {
    const context = { inputs: { separator: '-'.repeat(1000) } };
    const error = failureOf(() => renderTemplate('{{ range(0, 9999) | join(inputs.separator) }}', context, options));
    expect(error.expression).toBe('{{ range(0, 9999) | join(inputs.separator) }}');
    expect(error.reason).toMatch(
      /^'join' would build a text of [\d,]+ characters, which exceeds the limit of 5,000,000 characters$/,
    );
  });

  it('refuses a replace whose result would pass the text limit', () => {
    const context = { inputs: { a: 'a'.repeat(3000) } };
    expect(failureOf(() => renderTemplate("{{ inputs.a | replace('a', inputs.a) }}", context, options)).reason).toBe(
      "'replace' would build a text of 9,000,000 characters, which exceeds the limit of 5,000,000 characters",
    );
  });

  it('refuses to split a text into more items than the list limit', () => {
    const context = { inputs: { text: 'x,'.repeat(1_500_000) } };
    expect(failureOf(() => renderTemplate("{{ inputs.text | split(',') | length }}", context, options)).reason).toBe(
      "'split' would build a list of 1,500,001 items, which exceeds the limit of 1,000,000 items",
    );
  });

  it('refuses to print a list that shares its items, however cheap it is to hold', () => {
    // 2^25 references to one 1,000-character text: tiny in memory, gigabytes as JSON.
    const template = `{% set a = [inputs.word] %}${'{% set a = [a, a] %}'.repeat(25)}{{ a }}`;
    const error = failureOf(() => renderTemplate(template, { inputs: { word: 'w'.repeat(1000) } }, options));
    expect(error.expression).toBe('{{ a }}');
    expect(error.reason).toMatch(
      /^printing it would build a text of at least [\d,]+ characters, which exceeds the limit of 5,000,000 characters$/,
    );
  });

  it('refuses fromJson of a text holding more items than the list limit', () => {
    const context = { inputs: { json: `[${'0,'.repeat(1_200_000)}0]` } };
    expect(failureOf(() => renderTemplate('{{ inputs.json | fromJson | length }}', context, options)).reason).toBe(
      "'fromJson' would build a list of 1,200,001 items, which exceeds the limit of 1,000,000 items",
    );
  });

  it('bounds the total a rendering outputs, loop bodies included', () => {
    const context = { inputs: { chunk: 'c'.repeat(2000) } };
    const error = failureOf(() =>
      renderTemplate('{% for i in range(0, 9999) %}{{ inputs.chunk }}{% endfor %}', context, options),
    );
    expect(error.reason).toMatch(
      /^the rendering would output [\d,]+ characters, which exceeds the limit of 10,000,000 characters$/,
    );
  });

  it('bounds the total over every string of one renderValue, not each string alone', () => {
    const context = { inputs: { chunk: 'c'.repeat(1_000_000) } };
    const properties = Object.fromEntries(Array.from({ length: 12 }, (_v, i) => [`p${i}`, '{{ inputs.chunk }}']));
    // Each string alone is under every limit.
    expect(renderTemplate('{{ inputs.chunk }}', context, options)).toHaveLength(1_000_000);
    expect(failureOf(() => renderValue(properties, context, options)).reason).toMatch(
      /exceeds the limit of 10,000,000 characters$/,
    );
  });

  it('counts the work of filters as steps: a loop of sorts runs out of steps', () => {
    const context = { inputs: { list: Array.from({ length: 2_000 }, (_v, i) => (i * 7919) % 2_000) } };
    const template = '{% for i in range(1, 100) %}{{ inputs.list | sort | first }}{% endfor %}';
    // 300 evaluation steps, but each sort handles 2,000 numbers (22,000 comparisons: 220 steps).
    expect(failureOf(() => renderTemplate(template, context, { ...options, limits: { maxSteps: 2000 } })).reason).toBe(
      'the template does too much work (more than 2,000 steps)',
    );
    expect(renderTemplate('{{ inputs.list | sort | first }}', context, { ...options, limits: { maxSteps: 2000 } })).toBe('0');
  });

  it('counts each turn of a loop as a step, even with an empty body', () => {
    const template = '{% for a in range(0, 9999) %}{% for b in range(0, 9999) %}{% endfor %}{% endfor %}';
    const error = failureOf(() => renderTemplate(template, {}, options));
    expect(error.reason).toBe('the template does too much work (more than 200,000 steps)');
    expect(error.expression).toBe('{% for b in range(0, 9999) %}');
  });

  it('keeps the range limit of 10,000 numbers, saying how many were asked for', () => {
    expect(failureOf(() => renderTemplate('{{ range(1, 20000000) }}', {}, options)).reason).toBe(
      "'range' would build 20,000,000 numbers, which exceeds the limit of 10,000 numbers",
    );
  });

  it('applies the limits to final values, lists and the worker pass too', () => {
    expect(failureOf(() => renderFinal(doublingTemplate(8), {}, options)).reason).toMatch(
      /exceeds the limit of 1,000,000 items$/,
    );
    expect(
      failureOf(() => renderList(`${doublingTemplate(8).replace('{{ a | length }}', '{{ a }}')}`, {}, options)).reason,
    ).toMatch(/exceeds the limit of 1,000,000 items$/);
    const onWorker = `{{ secret('S') ~ secret('S') }}`;
    expect(failureOf(() => renderSecrets(onWorker, () => 'k'.repeat(3_000_000))).reason).toBe(
      "'~' would build a text of 6,000,000 characters, which exceeds the limit of 5,000,000 characters",
    );
  });

  it('takes lower or higher limits through the options', () => {
    expect(renderTemplate('{{ range(1, 10) | length }}', {}, options)).toBe('10');
    expect(
      failureOf(() => renderTemplate('{{ range(1, 10) | length }}', {}, { ...options, limits: { maxListLength: 5 } })).reason,
    ).toBe("'range' would build a list of 10 items, which exceeds the limit of 5 items");
    expect(renderTemplate(doublingTemplate(7), {}, { ...options, limits: { maxListLength: 2_000_000 } }).trim()).toBe('1280000');
    expect(() => renderTemplate('{{ 1 }}', {}, { ...options, limits: { maxTextLength: 0 } })).toThrow(
      'the expression limit maxTextLength must be a positive integer',
    );
    expect(EXPRESSION_LIMITS).toEqual({
      maxTextLength: 5_000_000,
      maxListLength: 1_000_000,
      maxRenderedLength: 10_000_000,
      maxSteps: 200_000,
      maxRangeLength: 10_000,
    });
  });
});
