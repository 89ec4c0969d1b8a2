import { coerceInputs } from './coerce-inputs';
import type { FlowInput } from './flow.types';

describe('coerceInputs applies defaults', () => {
  it('uses the default when no value is given, converted to the input type', () => {
    const inputs: FlowInput[] = [
      { id: 'region', type: 'STRING', required: false, defaults: 'eu' },
      { id: 'retries', type: 'INT', required: true, defaults: '2' },
      { id: 'tags', type: 'ARRAY', itemType: 'STRING', required: true, defaults: ['a'] },
    ];
    expect(coerceInputs(inputs, {})).toEqual({ ok: true, values: { region: 'eu', retries: 2, tags: ['a'] } });
  });

  it('prefers the given value over the default', () => {
    const inputs: FlowInput[] = [{ id: 'region', type: 'STRING', required: false, defaults: 'eu' }];
    expect(coerceInputs(inputs, { region: 'us' })).toEqual({ ok: true, values: { region: 'us' } });
  });

  it('leaves a template default as text for the executor to render', () => {
    const inputs: FlowInput[] = [
      { id: 'since', type: 'DATETIME', required: true, defaults: "{{ now() | date('yyyy-MM-dd') }}" },
      { id: 'limit', type: 'INT', required: true, defaults: '{{ vars.limit }}' },
    ];
    expect(coerceInputs(inputs, {})).toEqual({
      ok: true,
      values: { since: "{{ now() | date('yyyy-MM-dd') }}", limit: '{{ vars.limit }}' },
    });
  });

  it('reports a literal default that does not fit its type', () => {
    const inputs: FlowInput[] = [{ id: 'limit', type: 'INT', required: true, defaults: 'ten' }];
    expect(coerceInputs(inputs, {})).toEqual({ ok: false, problems: [{ path: 'inputs.limit', message: 'must be an integer' }] });
  });
});
