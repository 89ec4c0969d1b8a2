import { simulateFlow } from '../index';
import {
  failTask,
  flow,
  historyOf,
  labelsTask,
  log,
  outputValues,
  runsOf,
  statesByTask,
  subflow,
  waitFor,
} from '../test-support/flows';

describe('Subflow', () => {
  it('starts the child execution and takes its outputs when it succeeds', () => {
    const result = simulateFlow(flow([subflow('child', 'report', { inputs: { region: '{{ inputs.region }}' } })]), {
      inputs: { region: 'eu' },
      subflows: { 'company.team.report': { state: 'SUCCESS', outputs: { rows: 42 } } },
    });
    expect(result.execution.state).toBe('SUCCESS');
    const start = result.actions.find((action) => action.type === 'start-subflow');
    expect(start).toMatchObject({ namespace: 'company.team', flowId: 'report', inputs: { region: 'eu' }, wait: true });
    expect(runsOf(result.execution, 'child')[0]?.outputs).toMatchObject({ rows: 42, state: 'SUCCESS' });
    // Kestra's place for them.
    expect(runsOf(result.execution, 'child')[0]?.outputs).toMatchObject({ outputs: { rows: 42 } });
  });

  it('fails when the child fails and transmitFailed is set', () => {
    const result = simulateFlow(flow([subflow('child', 'report')]), { subflows: { 'company.team.report': { state: 'FAILED' } } });
    expect(result.execution.state).toBe('FAILED');
    expect(runsOf(result.execution, 'child')[0]?.error).toMatch(/ended FAILED/);
  });

  it('succeeds whatever the child does when transmitFailed is off', () => {
    const result = simulateFlow(flow([subflow('child', 'report', { transmitFailed: false })]), {
      subflows: { 'company.team.report': { state: 'FAILED' } },
    });
    expect(result.execution.state).toBe('SUCCESS');
  });

  it('does not wait for the child when wait is off', () => {
    const result = simulateFlow(flow([subflow('child', 'report', { wait: false }), log('after')]));
    expect(result.execution.state).toBe('SUCCESS');
    // Kestra's outputs without waiting: the child's id and the state it was created in, no flow outputs.
    const outputs = runsOf(result.execution, 'child')[0]?.outputs;
    expect(Object.keys(outputs ?? {}).sort()).toEqual(['executionId', 'state']);
    expect(outputs?.['state']).toBe('CREATED');
    expect(runsOf(result.execution, 'after')[0]?.histories[0]?.at).toBe(0);
  });
});

describe('Fail and Labels', () => {
  it('Fail fails with its rendered message when its condition holds', () => {
    const result = simulateFlow(flow([failTask('stop', 'bad region {{ inputs.region }}', '{{ inputs.strict }}'), log('after')]), {
      inputs: { region: 'mars', strict: true },
    });
    expect(result.execution.state).toBe('FAILED');
    expect(runsOf(result.execution, 'stop')[0]?.error).toBe('bad region mars');
    // Kestra's Fail is a runnable task: it goes through a worker like any.
    expect(historyOf(runsOf(result.execution, 'stop')[0])).toBe('CREATED>SUBMITTED>RUNNING>FAILED');
  });

  it('Fail succeeds when its condition is false', () => {
    const result = simulateFlow(flow([failTask('stop', 'x', '{{ inputs.strict }}'), log('after')]), {
      inputs: { strict: false },
    });
    expect(result.execution.state).toBe('SUCCESS');
  });

  it('Labels adds rendered labels to the execution', () => {
    const result = simulateFlow(flow([labelsTask('tag', { region: '{{ inputs.region }}' })]), { inputs: { region: 'eu' } });
    expect(result.execution.labels).toEqual({ region: 'eu' });
    expect(result.actions).toContainEqual({ type: 'set-labels', labels: { region: 'eu' } });
  });
});

describe('WaitFor', () => {
  it('loops its tasks until the condition holds', () => {
    const result = simulateFlow(
      flow([
        waitFor('poll', '{{ outputs.check.values.ready }}', [outputValues('check', { ready: 'true' })], { intervalMs: 5000 }),
      ]),
    );
    expect(result.execution.state).toBe('SUCCESS');
    expect(runsOf(result.execution, 'check')).toHaveLength(1);
  });

  it('stops after maxIterations and fails when failOnMaxReached', () => {
    const result = simulateFlow(flow([waitFor('poll', 'false', [log('check')], { intervalMs: 5000, maxIterations: 3 }, true)]));
    expect(result.execution.state).toBe('FAILED');
    expect(runsOf(result.execution, 'check').map((run) => run.iteration ?? 0)).toEqual([0, 1, 2]);
    // Three 1-s iterations with 5 s between them.
    expect(result.now).toBe(13_000);
    expect(statesByTask(result.execution)['poll']).toBe('FAILED');
  });

  it('ends SUCCESS after maxIterations without failOnMaxReached', () => {
    const result = simulateFlow(flow([waitFor('poll', 'false', [log('check')], { intervalMs: 1000, maxIterations: 2 })]));
    expect(result.execution.state).toBe('SUCCESS');
  });
});
