import { coerceInputs } from './coerce-inputs';
import type { FlowInput } from './flow.types';

const input = (declaration: Partial<FlowInput> & Pick<FlowInput, 'type'>): FlowInput => ({
  id: 'x',
  required: true,
  ...declaration,
});

function accepted(declaration: Parameters<typeof input>[0], value: unknown): unknown {
  const result = coerceInputs([input(declaration)], { x: value });
  if (!result.ok) throw new Error(`expected ${JSON.stringify(value)} to be accepted: ${JSON.stringify(result.problems)}`);
  return result.values['x'];
}

function refused(declaration: Parameters<typeof input>[0], value: unknown): string[] {
  const result = coerceInputs([input(declaration)], { x: value });
  return result.ok ? [] : result.problems.map((problem) => `${problem.path}: ${problem.message}`);
}

describe('coerceInputs converts each input type', () => {
  it('STRING: text, checked against the whole validator', () => {
    expect(accepted({ type: 'STRING' }, 'eu')).toBe('eu');
    expect(accepted({ type: 'STRING' }, 42)).toBe('42');
    expect(accepted({ type: 'STRING', validator: '[a-z]{2}' }, 'eu')).toBe('eu');
    expect(refused({ type: 'STRING', validator: '[a-z]{2}' }, 'europe')).toEqual(['inputs.x: must match [a-z]{2}']);
    expect(refused({ type: 'STRING' }, { a: 1 })).toEqual(['inputs.x: must be a string']);
  });

  it('FILE: an internal storage URI, as the API gives it once the file is stored', () => {
    const uri = 'kestra:///company/etl/executions/e1/inputs/x/data.csv';
    expect(accepted({ type: 'FILE' }, uri)).toBe(uri);
    expect(refused({ type: 'FILE' }, '/etc/passwd')).toEqual([
      'inputs.x: must be a file (an internal storage URI kestra:///...)',
    ]);
    expect(refused({ type: 'FILE' }, { uri })).toEqual(['inputs.x: must be a file (an internal storage URI kestra:///...)']);
  });

  it('INT: integers (also as text) within min and max', () => {
    expect(accepted({ type: 'INT' }, 7)).toBe(7);
    expect(accepted({ type: 'INT' }, '-12')).toBe(-12);
    expect(refused({ type: 'INT' }, 1.5)).toEqual(['inputs.x: must be an integer']);
    expect(refused({ type: 'INT' }, '1e3')).toEqual(['inputs.x: must be an integer']);
    expect(refused({ type: 'INT', min: 1 }, 0)).toEqual(['inputs.x: must be >= 1']);
    expect(refused({ type: 'INT', max: 10 }, 11)).toEqual(['inputs.x: must be <= 10']);
  });

  it('FLOAT: finite numbers (also as text) within min and max', () => {
    expect(accepted({ type: 'FLOAT' }, 0.25)).toBe(0.25);
    expect(accepted({ type: 'FLOAT' }, '2.5')).toBe(2.5);
    expect(refused({ type: 'FLOAT' }, 'abc')).toEqual(['inputs.x: must be a number']);
    expect(refused({ type: 'FLOAT' }, '')).toEqual(['inputs.x: must be a number']);
    expect(refused({ type: 'FLOAT', max: 1 }, 1.5)).toEqual(['inputs.x: must be <= 1']);
  });

  it('BOOLEAN: true/false, also as text', () => {
    expect(accepted({ type: 'BOOLEAN' }, true)).toBe(true);
    expect(accepted({ type: 'BOOLEAN' }, 'false')).toBe(false);
    expect(accepted({ type: 'BOOLEAN' }, 'TRUE')).toBe(true);
    expect(refused({ type: 'BOOLEAN' }, 'yes')).toEqual(['inputs.x: must be true or false']);
    expect(refused({ type: 'BOOLEAN' }, 1)).toEqual(['inputs.x: must be true or false']);
  });

  it('DATETIME: ISO-8601 with a zone, normalised to UTC', () => {
    expect(accepted({ type: 'DATETIME' }, '2026-01-31T08:00:00Z')).toBe('2026-01-31T08:00:00.000Z');
    expect(accepted({ type: 'DATETIME' }, '2026-01-31T09:30:00+01:00')).toBe('2026-01-31T08:30:00.000Z');
    const message = 'inputs.x: must be an ISO-8601 date-time with a time zone, such as 2026-01-31T08:00:00Z';
    expect(refused({ type: 'DATETIME' }, '2026-02-30T00:00:00Z')).toEqual([message]);
    expect(refused({ type: 'DATETIME' }, '2026-01-31T08:00:00')).toEqual([message]);
    expect(refused({ type: 'DATETIME' }, 'tomorrow')).toEqual([message]);
  });

  it('DURATION: ISO-8601, kept as written', () => {
    expect(accepted({ type: 'DURATION' }, 'PT10M')).toBe('PT10M');
    expect(refused({ type: 'DURATION' }, '10m')).toEqual(['inputs.x: must be an ISO-8601 duration such as PT30S, PT10M or P1D']);
  });

  it('JSON: a structure, or a string holding JSON', () => {
    expect(accepted({ type: 'JSON' }, { a: [1, 2] })).toEqual({ a: [1, 2] });
    expect(accepted({ type: 'JSON' }, '{"a": [1, 2]}')).toEqual({ a: [1, 2] });
    expect(accepted({ type: 'JSON' }, '[true]')).toEqual([true]);
    expect(refused({ type: 'JSON' }, '{a: 1}')).toEqual(['inputs.x: must be valid JSON']);
  });

  it('ARRAY: a list or a JSON list, each item of the item type', () => {
    expect(accepted({ type: 'ARRAY', itemType: 'INT' }, [1, '2'])).toEqual([1, 2]);
    expect(accepted({ type: 'ARRAY', itemType: 'STRING' }, '["a", "b"]')).toEqual(['a', 'b']);
    expect(refused({ type: 'ARRAY', itemType: 'INT' }, [1, 'two', 3.5])).toEqual([
      'inputs.x[1]: must be an integer',
      'inputs.x[2]: must be an integer',
    ]);
    expect(refused({ type: 'ARRAY', itemType: 'INT' }, 'a,b')).toEqual([
      'inputs.x: must be a list (or a string holding a JSON list)',
    ]);
  });

  it('SELECT: one of the declared values', () => {
    expect(accepted({ type: 'SELECT', values: ['fast', 'safe'] }, 'safe')).toBe('safe');
    expect(refused({ type: 'SELECT', values: ['fast', 'safe'] }, 'slow')).toEqual(['inputs.x: must be one of fast, safe']);
  });
});
