import { ExpressionError, renderTemplate } from './index';

// jq's `def` (functions with filter and $value parameters, recursion, lexical scope) and
// destructuring patterns after `as` (`[$a, $b]`, `{a: $x}`, `{$a}`, nested), as jq 1.6 runs them.
const context = {
  inputs: {
    pairs: [
      ['a', 1],
      ['b', 2],
    ],
    user: { name: 'ada', langs: ['ml', 'go'] },
    n: 5,
  },
};
const jq = (input: string, program: string): unknown =>
  JSON.parse(renderTemplate(`{{ ${input} | jq(program) | toJson }}`, { ...context, program }, { now: new Date(0) }));

function failure(program: string): string {
  try {
    jq('inputs.n', program);
  } catch (error) {
    if (error instanceof ExpressionError) return error.message;
    throw error;
  }
  throw new Error(`${program} did not fail`);
}

describe('filters: jq def and destructuring', () => {
  it.each([
    ['inputs.n', 'def inc: . + 1; inc | inc', [7]],
    ['inputs.n', 'def fact: if . <= 1 then 1 else . * (. - 1 | fact) end; fact', [120]],
    [
      'inputs.pairs',
      'def addvalue(f): f as $x | map(. + $x); addvalue(.[0])',
      [
        [
          ['a', 1, 'a', 1],
          ['b', 2, 'a', 1],
        ],
      ],
    ],
    ['inputs.n', 'def add($a; $b): $a + $b; add(1, 2; 10)', [11, 12]],
    ['inputs.n', 'def twice(f): [f, f]; twice(. * 2)', [[10, 10]]],
    ['inputs.n', 'def f: def g: 3; g * 2; f', [6]],
    ['inputs.n', '1 as $x | def f: $x; 2 as $x | f', [1]],
    ['inputs.n', 'def map(f): "mine"; [1] | map(.)', ['mine']],
    ['inputs.n', 'def upto($m): if . < $m then ., (. + 1 | upto($m)) else . end; [0 | upto(3)]', [[0, 1, 2, 3]]],
    ['inputs.user', 'def lang: .langs[0]; path(lang), del(lang).langs', [['langs', 0], ['go']]],
    ['inputs.pairs', '.[0] as [$k, $v] | {($k): $v}', [{ a: 1 }]],
    ['inputs.user', '. as {name: $n, langs: [$first]} | "\\($n) \\($first)"', ['ada ml']],
    ['inputs.user', '. as {$name, $langs: [$a, $b]} | [$name, $langs, $a, $b]', [['ada', ['ml', 'go'], 'ml', 'go']]],
    ['inputs.user', '. as {("name", "langs"): $v} | $v', ['ada', ['ml', 'go']]],
    ['inputs.pairs', 'reduce .[] as [$k, $v] ({}; . + {($k): $v})', [{ a: 1, b: 2 }]],
    ['inputs.pairs', '[foreach .[] as [$k, $v] (0; . + $v)]', [[1, 3]]],
    ['inputs.pairs', '. as [$a, $b, $c] | $c', [null]],
  ])('%s | jq(%s)', (input, program, expected) => {
    expect(jq(input, program)).toEqual(expected);
  });

  it('stops a recursion that does not end, and names what it refuses', () => {
    expect(failure('def f: f; f')).toContain('calls of f nest deeper than 200');
    expect(failure('. as [$a] ?// $a | $a')).toContain('destructuring alternatives (?//) are not supported');
    expect(failure('. as {a: $x} | $x')).toContain('cannot index number with "a"');
    expect(failure('def f(1): 2; f')).toContain('expected a parameter name (f or $v)');
    expect(failure('def f: 1; f(2)')).toContain('f/1');
  });
});
