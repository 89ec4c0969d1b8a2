import type { ForEachTask } from './flow.types';
import { formatProblem } from './parse-flow';
import { flowWithTasks, onlyTask, problemsOf } from './spec-helpers';

const body = '    tasks:\n      - { id: say, type: io.kestra.plugin.core.log.Log, message: "{{ taskrun.value }}" }\n';

describe('parseFlow reads the old EachSequential / EachParallel as ForEach', () => {
  it('reads EachSequential as a ForEach one value at a time', () => {
    const task = onlyTask(`  - id: each
    type: io.kestra.plugin.core.flow.EachSequential
    value: ["a", "b"]
${body}`) as ForEachTask;
    expect(task).toMatchObject({
      kind: 'ForEach',
      type: 'io.kestra.plugin.core.flow.EachSequential',
      concurrencyLimit: 1,
      values: ['a', 'b'],
    });
    expect(task.tasks.map((t) => t.id)).toEqual(['say']);
  });

  it('reads EachParallel as an unlimited ForEach, or limited by its `concurrent`', () => {
    const unlimited = onlyTask(`  - id: each
    type: io.kestra.plugin.core.flow.EachParallel
    value: '["a", "b"]'
${body}`);
    expect(unlimited).toMatchObject({ kind: 'ForEach', concurrencyLimit: 0, values: '["a", "b"]' });
    const limited = onlyTask(`  - id: each
    type: io.kestra.plugin.core.flow.EachParallel
    value: [1, 2, 3]
    concurrent: 2
${body}`);
    expect(limited).toMatchObject({ kind: 'ForEach', concurrencyLimit: 2, values: [1, 2, 3] });
  });

  it('gives ForEach Kestra’s default of one value at a time', () => {
    const task = onlyTask(`  - id: each
    type: io.kestra.plugin.core.flow.ForEach
    values: "{{ inputs.regions }}"
${body}`);
    expect(task).toMatchObject({ kind: 'ForEach', concurrencyLimit: 1, values: '{{ inputs.regions }}' });
  });

  it('refuses values that are neither a list nor a string', () => {
    const problems = problemsOf(
      flowWithTasks(`  - id: each
    type: io.kestra.plugin.core.flow.ForEach
    values: { a: 1 }
    concurrencyLimit: -1
${body}`),
    );
    expect(problems.map(formatProblem)).toEqual([
      'tasks[0].values: must be a list or a string holding a JSON list (line 6)',
      'tasks[0].concurrencyLimit: must be >= 0 (line 7)',
    ]);
  });
});
