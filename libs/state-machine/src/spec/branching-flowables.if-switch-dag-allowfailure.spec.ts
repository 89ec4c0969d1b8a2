import { listTaskRuns, simulateFlow } from '../index';
import { allowFailure, dag, flow, historyOf, ifTask, log, runsOf, statesByTask, switchTask } from '../test-support/flows';

describe('If, Switch, Dag and AllowFailure', () => {
  it('runs the then branch of an If when the condition is true', () => {
    const result = simulateFlow(flow([ifTask('check', '{{ inputs.go }}', [log('yes')], [log('no')])]), { inputs: { go: true } });
    expect(result.execution.state).toBe('SUCCESS');
    expect(statesByTask(result.execution)).toEqual({ check: 'SUCCESS', yes: 'SUCCESS' });
  });

  it('runs the else branch of an If when the condition is false', () => {
    const result = simulateFlow(flow([ifTask('check', '{{ inputs.go }}', [log('yes')], [log('no')])]), { inputs: { go: false } });
    expect(statesByTask(result.execution)).toEqual({ check: 'SUCCESS', no: 'SUCCESS' });
  });

  it('ends an If without else SUCCESS when the condition is false', () => {
    const result = simulateFlow(flow([ifTask('check', 'false', [log('yes')]), log('after')]));
    expect(result.execution.state).toBe('SUCCESS');
    expect(statesByTask(result.execution)).toEqual({ check: 'SUCCESS', after: 'SUCCESS' });
  });

  it('fails the If with the expression and its position when the condition cannot render', () => {
    const result = simulateFlow(flow([ifTask('check', '{{ inputs.missing }}', [log('yes')])]));
    expect(result.execution.state).toBe('FAILED');
    const check = runsOf(result.execution, 'check')[0];
    expect(check?.state).toBe('FAILED');
    expect(check?.error).toContain('{{ inputs.missing }}');
    expect(check?.error).toMatch(/line \d+, column \d+/);
  });

  it('runs the matching Switch case, or the defaults', () => {
    const tree = flow([
      switchTask('route', '{{ inputs.kind }}', { csv: [log('as-csv')], json: [log('as-json')] }, [log('fallback')]),
    ]);
    expect(statesByTask(simulateFlow(tree, { inputs: { kind: 'json' } }).execution)).toEqual({
      route: 'SUCCESS',
      'as-json': 'SUCCESS',
    });
    expect(statesByTask(simulateFlow(tree, { inputs: { kind: 'xml' } }).execution)).toEqual({
      route: 'SUCCESS',
      fallback: 'SUCCESS',
    });
  });

  it('runs Dag tasks after their dependencies, independent ones together', () => {
    const result = simulateFlow(
      flow([
        dag('graph', [
          { task: log('extract'), dependsOn: [] },
          { task: log('lookup'), dependsOn: [] },
          { task: log('transform'), dependsOn: ['extract', 'lookup'] },
          { task: log('load'), dependsOn: ['transform'] },
        ]),
      ]),
    );
    expect(result.execution.state).toBe('SUCCESS');
    const start = (id: string): number | undefined => runsOf(result.execution, id)[0]?.histories[0]?.at;
    expect(start('extract')).toBe(0);
    expect(start('lookup')).toBe(0);
    expect(start('transform')).toBe(1000);
    expect(start('load')).toBe(2000);
  });

  it('does not run Dag tasks whose dependency failed', () => {
    const result = simulateFlow(
      flow([
        dag('graph', [
          { task: log('extract'), dependsOn: [] },
          { task: log('load'), dependsOn: ['extract'] },
        ]),
      ]),
      { script: { extract: { state: 'FAILED' } } },
    );
    expect(result.execution.state).toBe('FAILED');
    expect(statesByTask(result.execution)).toEqual({ graph: 'FAILED', extract: 'FAILED' });
  });

  it('ends AllowFailure WARNING when a child fails, after running its errors branch', () => {
    const result = simulateFlow(
      flow([allowFailure('tolerant', [log('risky'), log('never')], { errors: [log('notify')] }), log('after')]),
      {
        script: { risky: { state: 'FAILED' } },
      },
    );
    expect(result.execution.state).toBe('WARNING');
    expect(statesByTask(result.execution)).toEqual({ tolerant: 'WARNING', risky: 'FAILED', notify: 'SUCCESS', after: 'SUCCESS' });
    expect(listTaskRuns(result.execution)).toHaveLength(4);
  });

  it('turns a start failure of a flowable whose failure is allowed into WARNING', () => {
    const tolerant = { ...ifTask('check', '{{ inputs.missing }}', [log('yes')]), allowFailure: true };
    const result = simulateFlow(flow([tolerant, log('after', { runIf: '{{ inputs.missing }}', allowFailure: true })]));
    expect(result.execution.state).toBe('WARNING');
    expect(historyOf(runsOf(result.execution, 'check')[0])).toBe('CREATED>RUNNING>WARNING');
    expect(historyOf(runsOf(result.execution, 'after')[0])).toBe('CREATED>RUNNING>WARNING');
    expect(runsOf(result.execution, 'after')[0]?.error).toMatch(/^runIf: Cannot render \{\{ inputs.missing \}\}/);
  });
});
