import { MAX_JSON_DEPTH, unstorableText, unstorableTextProblems } from './storable-text';

describe('unstorableText', () => {
  it('names a NUL and a lone surrogate with their position, and passes paired surrogates', () => {
    expect(unstorableText('ab\u0000')).toBe('contains a NUL character (U+0000) at character 3');
    expect(unstorableText('\ud800x')).toBe('contains a lone surrogate (U+D800, not Unicode) at character 1');
    expect(unstorableText('x\udfff')).toBe('contains a lone surrogate (U+DFFF, not Unicode) at character 2');
    expect(unstorableText('emoji 😀 and ü')).toBeUndefined();
  });
});

describe('unstorableTextProblems', () => {
  it('gives the JSON path of each bad value and of the object holding a bad key', () => {
    expect(unstorableTextProblems({ inputs: { who: 'a\u0000', list: ['ok', '\ud800'] }, labels: { 'k\u0000': 'v' } })).toEqual([
      { path: 'inputs.who', message: expect.stringContaining('NUL') },
      { path: 'inputs.list[1]', message: expect.stringContaining('lone surrogate') },
      { path: 'labels', message: expect.stringMatching(/^has a key that contains a NUL/) },
    ]);
    expect(unstorableTextProblems('\u0000', 'namespace')).toEqual([{ path: 'namespace', message: expect.any(String) }]);
    expect(unstorableTextProblems({ fine: [1, true, null, 'text'] })).toEqual([]);
  });

  it('refuses nesting deeper than the limit without overflowing the stack', () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    const problems = unstorableTextProblems({ inputs: deep });
    expect(problems).toHaveLength(1);
    expect(problems[0].message).toBe(`is nested deeper than ${MAX_JSON_DEPTH} levels`);
    expect(problems[0].path).toMatch(/^inputs(\[0\])+$/);
  });
});
