import type { DagTask } from './flow.types';
import { formatProblem } from './parse-flow';
import { flowWithTasks, onlyTask, problemsOf } from './spec-helpers';

const log = (id: string): string => `{ id: ${id}, type: io.kestra.plugin.core.log.Log, message: ${id} }`;

describe('parseFlow rejects Dag cycles', () => {
  it('reads a Dag with its dependencies', () => {
    const dag = onlyTask(`  - id: dag
    type: io.kestra.plugin.core.flow.Dag
    tasks:
      - task: ${log('extract')}
      - task: ${log('transform')}
        dependsOn: [extract]
      - task: ${log('load')}
        dependsOn: [transform]
`) as DagTask;
    expect(dag.kind).toBe('Dag');
    expect(dag.concurrency).toBe(0);
    expect(dag.tasks.map((entry) => [entry.task.id, entry.dependsOn])).toEqual([
      ['extract', []],
      ['transform', ['extract']],
      ['load', ['transform']],
    ]);
  });

  it('names the tasks of a cycle', () => {
    const problems = problemsOf(
      flowWithTasks(`  - id: dag
    type: io.kestra.plugin.core.flow.Dag
    tasks:
      - task: ${log('a')}
        dependsOn: [c]
      - task: ${log('b')}
        dependsOn: [a]
      - task: ${log('c')}
        dependsOn: [b]
`),
    );
    expect(problems.map(formatProblem)).toEqual(['tasks[0].tasks: dependency cycle: a -> c -> b -> a (line 7)']);
  });

  it('refuses a task that depends on itself', () => {
    const problems = problemsOf(
      flowWithTasks(`  - id: dag
    type: io.kestra.plugin.core.flow.Dag
    tasks:
      - task: ${log('a')}
        dependsOn: [a]
`),
    );
    expect(problems.map((p) => p.message)).toEqual(['dependency cycle: a -> a']);
  });

  it('only lets dependsOn name sibling tasks of the same Dag', () => {
    const problems = problemsOf(
      flowWithTasks(`  - id: outside
    type: io.kestra.plugin.core.log.Log
    message: hi
  - id: dag
    type: io.kestra.plugin.core.flow.Dag
    tasks:
      - task: ${log('a')}
        dependsOn: [outside]
`),
    );
    expect(problems.map(formatProblem)).toEqual([
      "tasks[1].tasks[0].dependsOn[0]: unknown task 'outside': dependsOn must name a task of the same Dag (line 11)",
    ]);
  });

  it('requires each Dag entry to hold a task and no other property', () => {
    const problems = problemsOf(
      flowWithTasks(`  - id: dag
    type: io.kestra.plugin.core.flow.Dag
    tasks:
      - dependsOn: []
        needs: [x]
`),
    );
    expect(problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'tasks[0].tasks[0].task: required',
      "tasks[0].tasks[0].needs: unknown property 'needs' for a Dag task",
    ]);
  });
});
