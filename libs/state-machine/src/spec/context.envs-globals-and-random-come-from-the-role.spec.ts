import type { Task } from '@lanner/model';
import { simulateFlow } from '../index';
import { flow, ifTask, labelsTask, log, outputValues, runsOf } from '../test-support/flows';

// Kestra's `envs` and `globals`, and the source uuid(), id() and randomInt() draw
// from, are given by the role that runs the state machine (`next`'s environment):
// every rendering gets them, the executor's late rendering of a dispatched task and
// a flowable's own (an If condition, a Labels task) alike.
const fixed = { nextUint32: () => 0 };
const environment = { envs: { region: 'eu' }, globals: { team: 'data' }, random: fixed };

describe('envs, globals and the random functions', () => {
  it('reach a dispatched task', () => {
    const result = simulateFlow(
      flow([outputValues('show', { r: '{{ envs.region }} {{ globals.team }} {{ randomInt(3, 9) }} {{ uuid() }}' })]),
      { environment },
    );
    expect(runsOf(result.execution, 'show')[0]?.outputs).toEqual({
      values: { r: 'eu data 3 00000000-0000-4000-8000-000000000000' },
    });
  });

  it("reach a flowable's rendering", () => {
    const tasks: Task[] = [
      ifTask('where', "{{ envs.region == 'eu' and globals.team == 'data' }}", [log('eu')], [log('elsewhere')]),
      labelsTask('tag', { run: '{{ uuid() }}' }),
    ];
    const result = simulateFlow(flow(tasks), { environment });
    expect(result.execution.state).toBe('SUCCESS');
    expect(runsOf(result.execution, 'eu')).toHaveLength(1);
    expect(result.execution.labels['run']).toBe('00000000-0000-4000-8000-000000000000');
  });

  it('are empty, and the random functions fail the task, when the role gives none', () => {
    const result = simulateFlow(flow([labelsTask('tag', { run: '{{ uuid() }}' })]));
    expect(result.execution.state).toBe('FAILED');
    expect(runsOf(result.execution, 'tag')[0]?.error).toMatch(/uuid\(\) is not available here/);
  });
});
