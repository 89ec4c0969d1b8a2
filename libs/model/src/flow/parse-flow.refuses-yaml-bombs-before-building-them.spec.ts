import fc from 'fast-check';
import { MAX_FLOW_SOURCE_BYTES, formatProblem, parseFlowUnguarded } from './parse-flow';
import { problemsOf, readFlow } from './spec-helpers';

const HEAD = 'id: f\nnamespace: n\ntasks:\n  - { id: a, type: io.kestra.plugin.core.log.Log, message: hi }\n';
/** Room left under the 1 MiB limit once the head is written. */
const ROOM = MAX_FLOW_SOURCE_BYTES - 200;

describe('parseFlow refuses a YAML bomb before building it, naming the problem', () => {
  it('refuses 1 MiB of nested flow sequences at the 201st level', () => {
    const source = `${HEAD}variables: { deep: ${'['.repeat(ROOM / 2)}${']'.repeat(ROOM / 2)} }\n`;
    // Column 20 is the first '['; the 200 levels are variables' map and 199 of them.
    expect(problemsOf(source).map(formatProblem)).toEqual(['the YAML is nested deeper than 200 levels (line 5)']);
    expect(problemsOf(source)[0].column).toBe(20 + 199);
  });

  it('refuses block nesting written on one line and by indentation', () => {
    const dashes = `${HEAD}variables:\n  d: ${'- '.repeat(ROOM / 2)}x\n`;
    expect(problemsOf(dashes).map((p) => p.message)).toEqual(['the YAML is nested deeper than 200 levels']);
    const indented = `${HEAD}variables:\n${Array.from({ length: 700 }, (_v, i) => `${' '.repeat(i + 2)}k:\n`).join('')}`;
    expect(problemsOf(indented).map(formatProblem)).toEqual(['the YAML is nested deeper than 200 levels (line 205)']);
  });

  it('refuses half a million values in one flow', () => {
    const source = `${HEAD}variables:\n  big: [${Array(ROOM / 2)
      .fill('1')
      .join(',')}]\n`;
    expect(problemsOf(source).map((p) => p.message)).toEqual(['the flow holds more than 100,000 YAML values']);
  });

  it('refuses more than 1,000 aliases, and still reads a flow that uses fewer', () => {
    const many = `${HEAD}variables:\n  a: &a x\n  big: [${Array(200_000).fill('*a').join(',')}]\n`;
    expect(problemsOf(many).map((p) => p.message)).toEqual(['the flow uses more than 1,000 aliases']);

    const some = `${HEAD}variables:\n  a: &a x\n  b: &b [*a, y]\n  list: [${Array(900).fill('*b').join(',')}]\n  a2: &a z\n  last: *a\n`;
    const flow = readFlow(some);
    const list = flow.variables['list'] as unknown[];
    expect(list).toHaveLength(900);
    expect(list[899]).toEqual(['x', 'y']);
    // An alias names the last anchor of that name before it.
    expect(flow.variables['last']).toBe('z');
  });

  it('still refuses the billion laughs by its expansions, not its size', () => {
    const levels = ['a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let level = 1; level < 10; level++) {
      const name = String.fromCharCode(97 + level);
      levels.push(
        `${name}: &${name} [${Array(10)
          .fill(`*${String.fromCharCode(96 + level)}`)
          .join(', ')}]`,
      );
    }
    const source = `${HEAD}variables:\n${levels.map((line) => `  ${line}`).join('\n')}\n`;
    expect(problemsOf(source).map((p) => p.message)).toEqual(['too many alias expansions']);
  });

  it('does not count brackets and indentation inside text: templates, quoted strings and block scripts', () => {
    const script = Array.from({ length: 300 }, (_v, i) => `      ${' '.repeat(i)}echo ${i}`).join('\n');
    const flow = readFlow(
      `${HEAD}variables:\n  quoted: "${'['.repeat(300)}"\n  template: {{ '${'{'.repeat(300)}' }} is text\n  script: |\n${script}\n`.replace(
        'template: {{',
        'template: x{{',
      ),
    );
    expect(flow.variables['quoted']).toBe('['.repeat(300));
    expect(flow.variables['template']).toBe(`x{{ '${'{'.repeat(300)}' }} is text`);
    expect(String(flow.variables['script']).split('\n')).toHaveLength(301);
  });

  it('reads a flow of 5,000 tasks', () => {
    const tasks = Array.from(
      { length: 5000 },
      (_v, i) => `  - id: t${i}\n    type: io.kestra.plugin.core.log.Log\n    message: "task {{ taskrun.id }} ${i}"\n`,
    ).join('');
    expect(readFlow(`id: f\nnamespace: n\ntasks:\n${tasks}`).tasks).toHaveLength(5000);
  });

  it('reads or refuses any nesting, however written, with a problem naming the depth', () => {
    const nested = fc.oneof(
      fc.integer({ min: 1, max: 3000 }).map((n) => `variables: { deep: ${'['.repeat(n)}1${']'.repeat(n)} }\n`),
      fc.integer({ min: 1, max: 3000 }).map((n) => `variables:\n  d:\n    ${'- '.repeat(n)}x\n`),
      fc
        .integer({ min: 1, max: 600 })
        .map(
          (n) =>
            `variables:\n${Array.from({ length: n }, (_v, i) => `${' '.repeat(i + 2)}k:\n`).join('')}${' '.repeat(n + 2)}v\n`,
        ),
    );
    fc.assert(
      fc.property(nested, (variables) => {
        const result = parseFlowUnguarded(`${HEAD}${variables}`);
        if (result.ok) return;
        for (const problem of result.problems)
          expect(problem.message).toMatch(/^(the YAML is nested deeper than 200 levels|is nested deeper than 100 levels)$/);
      }),
      { numRuns: 60 },
    );
  });
});
