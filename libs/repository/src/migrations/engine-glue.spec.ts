import { evaluateModuleGlue } from './engine-glue';

describe('evaluating the schema engine glue', () => {
  it('returns the exported functions and classes, sharing module state', () => {
    const glue = evaluateModuleGlue(
      [
        'let wasm;',
        'export function set(v) { wasm = v; }',
        'export function get() { return wasm; }',
        'export class Engine { static make() { return new Engine(); } }',
      ].join('\n'),
    );
    (glue['set'] as (v: number) => void)(42);
    expect((glue['get'] as () => number)()).toBe(42);
    expect(Object.keys(glue).sort()).toEqual(['Engine', 'get', 'set']);
  });

  it('refuses module forms it does not handle instead of evaluating them wrongly', () => {
    expect(() => evaluateModuleGlue("import x from 'y';\nexport function f() {}")).toThrow('does not handle');
    expect(() => evaluateModuleGlue('export default 1;')).toThrow('does not handle');
    expect(() => evaluateModuleGlue('const a = 1;')).toThrow('exports nothing');
  });
});
