import fc from 'fast-check';
import { describeUnstorableText, findUnstorableText, toStorableText, unstorableCharacterIn } from './storable-text';

describe('storable text: what PostgreSQL refuses is found with its path, or replaced', () => {
  it('finds a NUL in a nested value and names its path', () => {
    const problem = findUnstorableText({ vars: { items: ['ok', 'a\u0000b'] } });
    expect(problem).toEqual({ path: 'vars.items[1]', found: 'a NUL character (U+0000)', inKey: false });
    expect(problem && describeUnstorableText(problem, 'output')).toBe('output vars.items[1] holds a NUL character (U+0000)');
  });

  it('finds a lone surrogate, high or low, and a NUL in a property name', () => {
    expect(findUnstorableText({ a: 'x\uD800' })?.found).toBe('a lone surrogate (U+D800, not Unicode)');
    expect(findUnstorableText({ a: '\uDC00y' })?.found).toBe('a lone surrogate (U+DC00, not Unicode)');
    const inKey = findUnstorableText({ 'bad\u0000key': 1 });
    expect(inKey).toMatchObject({ inKey: true });
    expect(inKey && describeUnstorableText(inKey, 'label')).toContain('the property name label');
  });

  it('accepts paired surrogates (emoji), other control characters and plain values', () => {
    expect(findUnstorableText({ emoji: '😀', tab: '\t', bell: '\u0007', n: 1, b: true, z: null })).toBeUndefined();
    expect(unstorableCharacterIn('😀')).toBeUndefined();
  });

  it('replaces exactly the unstorable characters with U+FFFD and keeps the rest', () => {
    expect(toStorableText('a\u0000b\uD800c😀\uDC00')).toBe('a\uFFFDb\uFFFDc😀\uFFFD');
    const plain = 'nothing to do';
    expect(toStorableText(plain)).toBe(plain);
  });

  it('any string made storable has nothing left to find, and storable strings are unchanged', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const storable = toStorableText(text);
        expect(unstorableCharacterIn(storable)).toBeUndefined();
        expect(storable.length).toBe(text.length);
        if (unstorableCharacterIn(text) === undefined) expect(storable).toBe(text);
        // What is storable survives a round trip through UTF-8, as PostgreSQL would keep it.
        expect(Buffer.from(storable, 'utf8').toString('utf8')).toBe(storable);
      }),
    );
  });
});
