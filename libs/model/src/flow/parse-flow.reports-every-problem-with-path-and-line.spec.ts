import { formatProblem } from './parse-flow';
import { problemsOf } from './spec-helpers';

const BROKEN = `id: nightly
namespace: company.team
tasks:
  - id: first
    type: io.kestra.plugin.core.log.Log
    message: hello
  - id: second
    type: io.kestra.plugin.core.flow.Sleep
    duration: PT1S
    retry:
      type: constant
      interval: PT1S
      maxAttempts: 0
  - id: third
    type: io.kestra.plugin.core.log.Log
    level: LOUD
concurrency:
  limit: 0
`;

describe('parseFlow reports every problem with its path and line', () => {
  it('collects all problems of a flow at once, in source order', () => {
    const problems = problemsOf(BROKEN);
    expect(problems.map(formatProblem)).toEqual([
      'tasks[1].retry.maxAttempts: must be >= 1 (line 13)',
      'tasks[2].message: required (line 14)',
      'tasks[2].level: must be one of TRACE, DEBUG, INFO, WARN, ERROR (line 16)',
      'concurrency.limit: must be >= 1 (line 18)',
    ]);
  });

  it('gives the 1-based column of the offending value', () => {
    const [problem] = problemsOf(BROKEN);
    expect(problem).toEqual({ path: 'tasks[1].retry.maxAttempts', message: 'must be >= 1', line: 13, column: 20 });
  });

  it('points a missing property at the mapping that lacks it', () => {
    const problems = problemsOf(
      'namespace: company.team\ntasks:\n  - { id: a, type: io.kestra.plugin.core.log.Log, message: hi }\n',
    );
    expect(problems).toEqual([{ path: 'id', message: 'required', line: 1, column: 1 }]);
  });

  it('reports wrong shapes: a string where a list or a mapping is expected', () => {
    const problems = problemsOf(`id: f
namespace: company.team
labels: team
inputs: region
tasks: build
`);
    expect(problems.map(formatProblem)).toEqual([
      'labels: must be a mapping or a list of { key, value } (line 3)',
      'inputs: must be a list of inputs (line 4)',
      'tasks: must be a list of tasks (line 5)',
    ]);
  });

  it('reports a task that is not a mapping', () => {
    const problems = problemsOf('id: f\nnamespace: n\ntasks:\n  - just-a-string\n');
    expect(problems.map(formatProblem)).toEqual(['tasks[0]: must be a task (a mapping with an id and a type) (line 4)']);
  });

  it('checks the flow id and the namespace', () => {
    const problems = problemsOf(`id: "-nightly"
namespace: company..team
tasks:
  - { id: a, type: io.kestra.plugin.core.log.Log, message: hi }
`);
    expect(problems.map(formatProblem)).toEqual([
      'id: must start with a letter or digit and contain only letters, digits, ., _ and - (line 1)',
      'namespace: must be dot-separated names of letters, digits, _ and - (like company.team) (line 2)',
    ]);
  });

  it('requires id, namespace and at least one task', () => {
    expect(problemsOf('description: nothing else\n').map(formatProblem)).toEqual([
      'id: required (line 1)',
      'namespace: required (line 1)',
      'tasks: required (line 1)',
    ]);
    expect(problemsOf('id: f\nnamespace: n\ntasks: []\n').map(formatProblem)).toEqual([
      'tasks: must contain at least one task (line 3)',
    ]);
  });
});
