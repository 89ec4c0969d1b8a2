import { coerceInputs } from './coerce-inputs';
import type { FlowInput } from './flow.types';

const inputs: FlowInput[] = [
  { id: 'region', type: 'STRING', required: true },
  { id: 'count', type: 'INT', required: false },
  { id: 'size', type: 'INT', required: true, defaults: 3 },
];

describe('coerceInputs reports missing and unknown inputs', () => {
  it('refuses a required input given no value and no default', () => {
    expect(coerceInputs(inputs, {})).toEqual({ ok: false, problems: [{ path: 'inputs.region', message: 'required' }] });
    expect(coerceInputs(inputs, { region: null })).toEqual({
      ok: false,
      problems: [{ path: 'inputs.region', message: 'required' }],
    });
  });

  it('refuses values for inputs the flow does not declare', () => {
    expect(coerceInputs(inputs, { region: 'eu', regoin: 'us' })).toEqual({
      ok: false,
      problems: [{ path: 'inputs.regoin', message: 'unknown input (declared: region, count, size)' }],
    });
    expect(coerceInputs([], { x: 1 })).toEqual({
      ok: false,
      problems: [{ path: 'inputs.x', message: 'unknown input (the flow declares no inputs)' }],
    });
  });

  it('reports every problem at once', () => {
    const result = coerceInputs(inputs, { count: 'many', extra: true });
    expect(result.ok ? [] : result.problems.map((problem) => problem.path)).toEqual([
      'inputs.extra',
      'inputs.region',
      'inputs.count',
    ]);
  });

  it('gives an optional input without a value null, so templates can test it', () => {
    expect(coerceInputs(inputs, { region: 'eu' })).toEqual({ ok: true, values: { region: 'eu', count: null, size: 3 } });
  });

  it('is not fooled by inherited property names', () => {
    const declared: FlowInput[] = [{ id: 'constructor', type: 'STRING', required: true }];
    expect(coerceInputs(declared, {})).toEqual({ ok: false, problems: [{ path: 'inputs.constructor', message: 'required' }] });
  });
});
