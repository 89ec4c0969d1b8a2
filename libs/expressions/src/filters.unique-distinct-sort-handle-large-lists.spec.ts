import { ExpressionError, renderTemplate } from './index';

const options = { now: new Date('2026-01-02T03:04:05Z') };

describe('unique, distinct and sort keep their meaning on large lists', () => {
  it('unique keeps the first of each group of equal items, comparing lists and maps by content', () => {
    const context = {
      inputs: {
        items: [3, 'a', [1, 2], { x: 1, y: [2] }, 3, 'a', [1, 2], { y: [2], x: 1 }, null, 0, -0, true, '3', [2, 1], null],
      },
    };
    expect(renderTemplate('{{ inputs.items | unique }}', context, options)).toBe(
      '[3,"a",[1,2],{"x":1,"y":[2]},null,0,true,"3",[2,1]]',
    );
    expect(renderTemplate('{{ inputs.items | distinct }}', context, options)).toBe(
      renderTemplate('{{ inputs.items | unique }}', context, options),
    );
  });

  it('unique of 160,000 items built with + finds the 10,000 distinct ones', () => {
    const template = `{% set a = range(0, 9999) %}${'{% set a = a + a %}'.repeat(4)}{{ a | length }} {{ a | unique | length }} {{ (a | unique)[9999] }}`;
    expect(renderTemplate(template, {}, options)).toBe('160000 10000 9999');
  });

  it('unique of a list that holds the same nested list many times sees one item', () => {
    const template = `{% set a = [1, [2, 3]] %}${'{% set a = a + a %}'.repeat(15)}{% set b = [a, a, a] %}{{ a | length }} {{ a | unique }} {{ b | unique | length }}`;
    expect(renderTemplate(template, {}, options)).toBe('65536 [1,[2,3]] 1');
  });

  it('sort orders 160,000 numbers or texts, and refuses a mix', () => {
    const context = { inputs: { words: ['pear', 'Apple', 'apple', 'banana'] } };
    const template = `{% set a = range(0, 9999) %}${'{% set a = a + a %}'.repeat(4)}{% set s = a | sort %}{{ s[0] }} {{ s[15] }} {{ s[16] }} {{ s[159999] }}`;
    expect(renderTemplate(template, {}, options)).toBe('0 0 1 9999');
    expect(renderTemplate('{{ [3, -1.5, 10, 2] | sort }} {{ inputs.words | sort }}', context, options)).toBe(
      '[-1.5,2,3,10] ["Apple","apple","banana","pear"]',
    );
    expect(() => renderTemplate("{{ [1, 'a'] | sort }}", context, options)).toThrow(ExpressionError);
    expect(() => renderTemplate("{{ [1, 'a'] | sort }}", context, options)).toThrow(
      "'sort' sorts numbers or strings, got a number and a string",
    );
  });

  it('reverse keeps a character made of two UTF-16 units whole', () => {
    expect(renderTemplate("{{ 'a😀b' | reverse }}", {}, options)).toBe('b😀a');
  });
});
