import { renderTemplate, type RandomSource } from './index';

/** A source that repeats a fixed sequence: the results are known in advance. */
function sequence(...values: number[]): RandomSource {
  let next = 0;
  return { nextUint32: () => values[next++ % values.length] as number };
}

const now = new Date('2026-01-02T03:04:05Z');
const render = (template: string, random?: RandomSource): string =>
  renderTemplate(template, {}, random === undefined ? { now } : { now, random });

describe('uuid(), id() and randomInt()', () => {
  it('uuid() is a version-4 UUID made of the drawn words', () => {
    expect(render('{{ uuid() }}', sequence(0x01234567, 0x89abcdef, 0xfedcba98, 0x76543210))).toBe(
      '01234567-89ab-4def-bedc-ba9876543210',
    );
  });

  it('uuid() and id() differ at each call when the source does', () => {
    const counter = (() => {
      let n = 0;
      return { nextUint32: () => (n = (n * 1_103_515_245 + 12_345) % 4_294_967_296) };
    })();
    expect(render('{{ uuid() == uuid() }} {{ id() == id() }}', counter)).toBe('false false');
  });

  it('id() is the UUID in base 62, at most 22 characters', () => {
    const id = render('{{ id() }}', sequence(0xffffffff));
    expect(id).toMatch(/^[0-9A-Za-z]{1,22}$/);
    // Zero words: the UUID 00000000-0000-4000-8000-000000000000, in base 62.
    expect(render('{{ id() }}', sequence(0))).toBe('1VgEh72lXvTXkG');
  });

  it('randomInt(lower, upper) spans lower (included) to upper (excluded)', () => {
    expect(render('{{ randomInt(5, 15) }}', sequence(0))).toBe('5');
    expect(render('{{ randomInt(5, 15) }}', sequence(0xffffffff))).toBe('14');
    expect(render('{{ randomInt(lower=3, upper=4) }}', sequence(0x80000000))).toBe('3');
  });

  it('randomInt refuses upper below lower and arguments that are not whole numbers, naming the expression', () => {
    expect(() => render('{{ randomInt(10, 1) }}', sequence(0))).toThrow(
      "{{ randomInt(10, 1) }} (line 1, column 4): 'randomInt': upper is less than lower",
    );
    expect(() => render("{{ randomInt(1, 'x') }}", sequence(0))).toThrow("'randomInt' needs a whole number for upper");
    expect(() => render('{{ randomInt(1) }}', sequence(0))).toThrow("'randomInt' needs an argument upper");
  });

  it('fails where the renderer gave no source: rendering draws no randomness of its own', () => {
    expect(() => render('{{ uuid() }}')).toThrow('uuid() is not available here');
    expect(() => render('{{ randomInt(1, 2) }}')).toThrow('randomInt() is not available here');
  });
});
