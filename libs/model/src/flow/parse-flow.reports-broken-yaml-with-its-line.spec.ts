import { MAX_FLOW_SOURCE_BYTES, formatProblem, parseFlow } from './parse-flow';
import { problemsOf, readFlow } from './spec-helpers';

describe('parseFlow reports broken YAML with its line, never an exception', () => {
  it('gives the line of a syntax error', () => {
    const problems = problemsOf('id: f\nnamespace: n\ntasks:\n  - id: a\n    message: [unclosed\n');
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0].line).toBeGreaterThanOrEqual(5);
    for (const problem of problems) expect(problem.line).toBeDefined();
  });

  it('reports a tab indentation error on its line', () => {
    const problems = problemsOf('id: f\nnamespace: n\ntasks:\n\t- id: a\n');
    expect(problems[0].line).toBe(4);
  });

  it('refuses duplicate keys, pointing at the second one', () => {
    const problems = problemsOf(
      'id: f\nid: g\nnamespace: n\ntasks:\n  - { id: a, type: io.kestra.plugin.core.log.Log, message: hi }\n',
    );
    expect(problems.map(formatProblem)).toEqual(['Map keys must be unique (line 2)']);
  });

  it('refuses an empty source and a source that is not a mapping', () => {
    expect(problemsOf('').map(formatProblem)).toEqual([
      'the flow is empty: it needs at least an id, a namespace and tasks (line 1)',
    ]);
    expect(problemsOf('# only a comment\n').map((p) => p.line)).toEqual([1]);
    expect(problemsOf('- id: f\n').map(formatProblem)).toEqual([
      'a flow must be a mapping with an id, a namespace and tasks (line 1)',
    ]);
    expect(problemsOf('just text').map(formatProblem)).toEqual([
      'a flow must be a mapping with an id, a namespace and tasks (line 1)',
    ]);
  });

  it('refuses several YAML documents in one source', () => {
    const problems = problemsOf('id: f\n---\nid: g\n');
    expect(problems.some((problem) => problem.line !== undefined)).toBe(true);
  });

  it('refuses a source over 1 MiB', () => {
    const source = `id: f\nnamespace: n\ndescription: "${'x'.repeat(MAX_FLOW_SOURCE_BYTES)}"\n`;
    expect(problemsOf(source).map(formatProblem)).toEqual(['the flow source is larger than 1048576 bytes (1 MiB) (line 1)']);
  });

  it('counts the limit in UTF-8 bytes', () => {
    const multiByte = 'é'.repeat(MAX_FLOW_SOURCE_BYTES / 2 + 1);
    expect(problemsOf(`id: f\ndescription: ${multiByte}\n`).map((p) => p.message)).toEqual([
      'the flow source is larger than 1048576 bytes (1 MiB)',
    ]);
  });

  it('follows anchors and aliases, and refuses an unknown alias', () => {
    const flow = readFlow(`id: f
namespace: n
tasks:
  - id: a
    type: io.kestra.plugin.core.flow.Sleep
    duration: PT1S
    retry: &retry { type: constant, interval: PT1S, maxAttempts: 2 }
  - id: b
    type: io.kestra.plugin.core.flow.Sleep
    duration: PT1S
    retry: *retry
`);
    expect(flow.tasks[1].retry).toEqual(flow.tasks[0].retry);
    expect(problemsOf('id: f\nnamespace: n\ntasks: *nowhere\n').length).toBeGreaterThan(0);
  });

  it('refuses an alias bomb instead of expanding it', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 9; level++) {
      const name = String.fromCharCode(97 + level);
      const previous = String.fromCharCode(96 + level);
      levels.push(`${name}: &${name} [${Array(10).fill(`*${previous}`).join(', ')}]`);
    }
    const source = `id: f\nnamespace: n\nvariables:\n${levels.map((line) => `  ${line}`).join('\n')}\ntasks:\n  - { id: a, type: io.kestra.plugin.core.log.Log, message: hi }\n`;
    const problems = problemsOf(source);
    expect(problems.some((problem) => problem.message === 'too many alias expansions')).toBe(true);
  });

  it('refuses values nested deeper than it reads', () => {
    const deep = `${'['.repeat(150)}${']'.repeat(150)}`;
    const problems = problemsOf(
      `id: f\nnamespace: n\nvariables: { deep: ${deep} }\ntasks:\n  - { id: a, type: io.kestra.plugin.core.log.Log, message: hi }\n`,
    );
    expect(problems.map((p) => p.message)).toEqual(['is nested deeper than 100 levels']);
  });

  it('answers with a problem, not an exception, for input that is not text', () => {
    const result = parseFlow(42 as unknown as string);
    expect(result).toEqual({ ok: false, problems: [{ path: '', line: 1, column: 1, message: 'the flow source must be text' }] });
  });
});
