import { ExpressionError, renderTemplate } from './index';

const options = { now: new Date('2026-01-02T03:04:05Z') };
const context = {
  inputs: {
    users: [
      { name: 'ada', age: 36, tags: ['math'] },
      { name: 'grace', age: 85, tags: ['navy', 'cobol'] },
    ],
    order: {
      id: 7,
      items: [
        { sku: 'a-1', qty: 2 },
        { sku: 'b-22', qty: 1 },
      ],
      note: null,
    },
  },
};
/** The jq program's results, as JSON (the filter yields the list of them). */
const jq = (input: string, program: string): unknown =>
  JSON.parse(renderTemplate(`{{ ${input} | jq(program) | toJson }}`, { ...context, program }, options));

function failure(input: string, program: string): ExpressionError {
  try {
    jq(input, program);
  } catch (error) {
    if (error instanceof ExpressionError) return error;
    throw error;
  }
  throw new Error(`'${program}' ran without an error`);
}

// Kestra's jq filter runs jackson-jq (jq 1.6); these are the jq manual's constructs flows use.
describe('jq: variables, reduce and foreach, try/catch', () => {
  it.each([
    ['inputs.order', '.id as $id | .items[] | "\\($id)-\\(.sku)"', ['7-a-1', '7-b-22']],
    ['inputs.order', '.items | map(.qty) as $q | $q | add', [3]],
    ['inputs.order', 'reduce .items[] as $i (0; . + $i.qty)', [3]],
    ['inputs.order', '[foreach .items[] as $i (0; . + $i.qty)]', [[2, 3]]],
    [
      'inputs.order',
      '[foreach .items[] as $i (0; . + 1; [., $i.sku])]',
      [
        [
          [1, 'a-1'],
          [2, 'b-22'],
        ],
      ],
    ],
    ['inputs.users', '1 + (2 as $x | $x * 10)', [21]],
    ['inputs.users', '[.[] | try error("bad \\(.name)") catch .]', [['bad ada', 'bad grace']]],
    ['inputs.users', 'try (.[0].name | tonumber) catch "not a number"', ['not a number']],
    ['inputs.users', '[.[] | try (if .age > 50 then error({code: 1}) else .name end) catch .code]', [['ada', 1]]],
    ['inputs.users', '$ENV | length', [0]],
  ])('%s | jq(%s)', (input, program, expected) => {
    expect(jq(input, program)).toEqual(expected);
  });
});

describe('jq: strings, formats and regexes', () => {
  it.each([
    ['inputs.users', '.[] | "\\(.name) is \\(.age)"', ['ada is 36', 'grace is 85']],
    ['inputs.users', '"\\(.[0].tags)"', ['["math"]']],
    ['inputs.users', '.[1].tags | @csv', ['"navy","cobol"']],
    ['inputs.users', '.[1].tags | @tsv', ['navy\tcobol']],
    ['inputs.users', '.[0].name | @base64', ['YWRh']],
    ['inputs.users', '"YWRh" | @base64d', ['ada']],
    ['inputs.users', '"a b&c" | @uri', ['a%20b%26c']],
    ['inputs.users', '"<b>" | @html', ['&lt;b&gt;']],
    ['inputs.users', '"it\'s" | @sh', ["'it'\\''s'"]],
    ['inputs.users', '@json "v=\\(.[0].tags)"', ['v=["math"]']],
    ['inputs.users', '.[0] | @text', ['{"name":"ada","age":36,"tags":["math"]}']],
    ['inputs.order', '[.items[].sku | test("^[a-z]-\\\\d$")]', [[true, false]]],
    ['inputs.order', '.items[1].sku | capture("(?<letter>[a-z])-(?<num>\\\\d+)")', [{ letter: 'b', num: '22' }]],
    ['inputs.order', '.items[1].sku | match("\\\\d+") | [.offset, .length, .string]', [[2, 2, '22']]],
    ['inputs.order', '[.items[1].sku | match("\\\\d"; "g") | .string]', [['2', '2']]],
    ['inputs.order', '.items[1].sku | sub("(?<n>\\\\d+)"; "<\\(.n)>")', ['b-<22>']],
    ['inputs.order', '"a1b2c3" | gsub("[0-9]"; "#")', ['a#b#c#']],
    ['inputs.order', '"a1b2c3" | [scan("[a-z]\\\\d")]', [['a1', 'b2', 'c3']]],
    ['inputs.order', '"a, b,c" | [splits(", *")]', [['a', 'b', 'c']]],
    ['inputs.order', '"  x  " | trim, ltrim, rtrim', ['x', 'x  ', '  x']],
    ['inputs.order', '"abc" | explode | implode', ['abc']],
    ['inputs.order', '"a,b,a" | indices("a")', [[0, 4]]],
  ])('%s | jq(%s)', (input, program, expected) => {
    expect(jq(input, program)).toEqual(expected);
  });
});

describe('jq: paths, recursion and the rest', () => {
  it.each([
    [
      'inputs.order',
      'del(.note)',
      [
        {
          id: 7,
          items: [
            { sku: 'a-1', qty: 2 },
            { sku: 'b-22', qty: 1 },
          ],
        },
      ],
    ],
    ['inputs.order', 'del(.items[0], .note) | .items | length', [1]],
    ['inputs.order', 'del(.items[] | select(.qty > 1)) | .items[].sku', ['b-22']],
    ['inputs.order', 'getpath(["items", 1, "sku"])', ['b-22']],
    ['inputs.order', 'setpath(["items", 0, "qty"]; 5) | .items[0].qty', [5]],
    ['inputs.order', '[paths(type == "number")]', [[['id'], ['items', 0, 'qty'], ['items', 1, 'qty']]]],
    ['inputs.order', '[leaf_paths] | length', [6]],
    ['inputs.order', 'path(.items[0].sku)', [['items', 0, 'sku']]],
    ['inputs.order', '[.. | numbers]', [[7, 2, 1]]],
    ['inputs.order', '[.. | strings]', [['a-1', 'b-22']]],
    ['inputs.order', 'delpaths([["id"], ["note"]]) | keys', [['items']]],
    ['inputs.order', '[recurse(if . < 3 then . + 1 else empty end)] | length', [1]],
    ['inputs.order', '2 | [recurse(if . < 4 then . + 1 else empty end)]', [[2, 3, 4]]],
    ['inputs.order', '[1 | until(. > 100; . * 2)]', [[128]]],
    ['inputs.order', '[1 | while(. < 10; . * 3)]', [[1, 3, 9]]],
    [
      'inputs.order',
      '[[1, 2], [3]] | transpose',
      [
        [
          [1, 3],
          [2, null],
        ],
      ],
    ],
    ['inputs.order', 'isempty(.items[] | select(.qty > 5))', [true]],
    ['inputs.order', 'pow(2; 10), (100 | log10)', [1024, 2]],
  ])('%s | jq(%s)', (input, program, expected) => {
    expect(jq(input, program)).toEqual(expected);
  });

  it('names what it does not support', () => {
    expect(failure('inputs.order', '"a" | test("a"; "i")').message).toContain("the regex flag 'i' is not supported");
    expect(failure('inputs.order', '"a" | test("(a)\\\\1")').message).toContain('uses a backreference');
    expect(failure('inputs.order', 'del(.items | length)').message).toContain('is not a path expression');
    expect(failure('inputs.order', 'input').message).toContain('input/0 is not available in a template');
    expect(failure('inputs.order', '"\\(.id"').message).toMatch(/unterminated/);
    expect(failure('inputs.order', 'as $x').message).toContain("unexpected 'as' at 1");
    expect(failure('inputs.order', 'label $out | 1').message).toContain("'label' is not supported");
  });
});
