import { formatProblem } from './parse-flow';

describe('formatProblem', () => {
  it('prints the path, the message and the line', () => {
    expect(formatProblem({ path: 'tasks[2].retry.maxAttempts', message: 'must be >= 1', line: 14, column: 22 })).toBe(
      'tasks[2].retry.maxAttempts: must be >= 1 (line 14)',
    );
  });

  it('leaves out what is not known', () => {
    expect(formatProblem({ path: 'inputs.region', message: 'required' })).toBe('inputs.region: required');
    expect(formatProblem({ path: '', message: 'Unexpected end of input', line: 3 })).toBe('Unexpected end of input (line 3)');
  });
});
