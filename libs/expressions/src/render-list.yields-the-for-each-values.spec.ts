import { renderList } from './index';

const options = { now: new Date('2026-01-02T03:04:05Z') };
const context = {
  inputs: { list: ['a', { b: 1 }], region: 'eu', count: 2 },
  outputs: { fetch: { vars: { json: '["x","y"]' } } },
};

describe('renderList: the values a ForEach iterates', () => {
  it('renders the strings of a YAML list', () => {
    expect(renderList(['static', '{{ inputs.region }}', 3], context, options)).toEqual(['static', 'eu', 3]);
  });

  it('yields the list a single expression evaluates to, with its item types', () => {
    expect(renderList('{{ inputs.list }}', context, options)).toEqual(['a', { b: 1 }]);
    expect(renderList('{{ range(1, inputs.count) }}', context, options)).toEqual([1, 2]);
  });

  it('parses text that renders to a JSON array', () => {
    expect(renderList('["a", "b"]', context, options)).toEqual(['a', 'b']);
    expect(renderList('{{ outputs.fetch.vars.json }}', context, options)).toEqual(['x', 'y']);
    expect(
      renderList('[{% for i in range(1, 2) %}"{{ i }}"{% if not loop.last %},{% endif %}{% endfor %}]', context, options),
    ).toEqual(['1', '2']);
  });

  it('fails clearly when the result is not a list', () => {
    expect(() => renderList('{{ inputs.region }}', context, options)).toThrow('must render to a list or a JSON array, got text');
    expect(() => renderList('{{ inputs.count }}', context, options)).toThrow('got a number');
    expect(() => renderList(42, context, options)).toThrow('expects a list');
  });
});
