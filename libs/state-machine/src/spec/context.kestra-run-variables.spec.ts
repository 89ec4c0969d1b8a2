import { simulateFlow } from '../index';
import { flow, forEach, log, outputValues, runsOf, sequential, waitFor } from '../test-support/flows';

// The render context of a task run holds Kestra's RunVariables: what a template reads.
describe('the render context (Kestra RunVariables)', () => {
  const values = {
    flow: '{{ flow.tenantId }}/{{ flow.namespace }}/{{ flow.id }}@{{ flow.revision }}',
    execution: '{{ execution.id }} {{ execution.originalId }} {{ execution.startDate }}',
    task: '{{ task.id }} {{ task.type }}',
    taskrun: '{{ taskrun.id is defined }} {{ taskrun.startDate }} {{ taskrun.attemptsCount }} {{ taskrun.parentId ?? "none" }}',
    maps: '{{ envs | length }} {{ globals | length }} {{ trigger ?? "no trigger" }}',
  };

  it('gives flow, execution, task and taskrun as Kestra names them', () => {
    const result = simulateFlow(flow([outputValues('show', values)]), { executionId: 'exec-1', now: 1_000 });
    const run = runsOf(result.execution, 'show')[0];
    expect(run.error).toBeUndefined();
    expect(run.outputs).toEqual({
      values: {
        flow: 'main/company.team/scenario@1',
        execution: 'exec-1 exec-1 1970-01-01T00:00:01.000Z',
        task: 'show io.kestra.plugin.core.output.OutputValues',
        taskrun: 'true 1970-01-01T00:00:01.000Z 0 none',
        maps: '0 0 no trigger',
      },
    });
  });

  it('gives a ForEach child its value, parent task run id, parents and parent', () => {
    const result = simulateFlow(
      flow([
        forEach(
          'outer',
          ['a', 'b'],
          [
            forEach(
              'inner',
              ['1'],
              [
                outputValues('leaf', {
                  v: '{{ parent.taskrun.value }}-{{ taskrun.value }} {{ parents | length }} {{ taskrun.parentId is defined }}',
                }),
              ],
              0,
            ),
          ],
          0,
        ),
      ]),
    );
    expect(runsOf(result.execution, 'leaf').map((run) => run.outputs?.['values'])).toEqual([
      { v: 'a-1 1 true' },
      { v: 'b-1 1 true' },
    ]);
  });

  it('gives parents nearest first, one per enclosing task run with a value (the lane it runs in), none for those without (inner, outer)', () => {
    const result = simulateFlow(
      flow([
        forEach(
          'outer',
          ['a'],
          [
            sequential('group', [
              forEach(
                'inner',
                ['1'],
                [
                  forEach(
                    'deepest',
                    ['x'],
                    [
                      outputValues('leaf', {
                        v: '{{ parents | length }} {{ parent.taskrun.value }} {{ parents[1].taskrun.value }}',
                      }),
                    ],
                  ),
                ],
              ),
            ]),
          ],
        ),
      ]),
    );
    expect(result.execution.state).toBe('SUCCESS');
    expect(runsOf(result.execution, 'leaf').map((run) => run.outputs?.['values'])).toEqual([{ v: '2 1 a' }]);
  });

  it("gives an enclosing task run's outputs in parents (a WaitFor's iterationCount) and taskrun.iteration from 1", () => {
    const loop = waitFor(
      'loop',
      '{{ outputs.seen.values.count == "2" }}',
      [
        outputValues('seen', {
          count: '{{ parent.outputs.iterationCount }}',
          iteration: '{{ taskrun.iteration }}',
          kinds: '{{ parents[0].taskrun is defined }}',
        }),
      ],
      { intervalMs: 1000 },
    );
    const result = simulateFlow(flow([loop]));
    expect(result.execution.state).toBe('SUCCESS');
    expect(runsOf(result.execution, 'seen').map((run) => run.outputs?.['values'])).toEqual([
      { count: '1', iteration: '1', kinds: 'false' },
      { count: '2', iteration: '2', kinds: 'false' },
    ]);
  });

  it("gives Kestra's tasks map: the state of each task run, by value inside ForEach", () => {
    const result = simulateFlow(
      flow([
        log('first'),
        forEach('each', ['x', 'y'], [log('inner')], 1),
        outputValues('read', { v: '{{ tasks.first.state }} {{ tasks.inner.x.state }} {{ tasks.each.state }}' }),
      ]),
    );
    expect(runsOf(result.execution, 'read')[0].outputs).toEqual({ values: { v: 'SUCCESS SUCCESS SUCCESS' } });
  });
});
