import { formatProblem } from './parse-flow';
import { flowWithTasks, messagesOf, problemsOf } from './spec-helpers';

describe('parseFlow rejects what it does not know', () => {
  it('names an unknown task type', () => {
    expect(messagesOf(flowWithTasks('  - { id: a, type: io.kestra.plugin.foo.Bar, anything: 1 }\n'))).toEqual([
      "tasks[0].type: unknown task type 'io.kestra.plugin.foo.Bar'",
    ]);
  });

  it('names an unknown property, with the near miss it probably meant', () => {
    const problems = problemsOf(
      flowWithTasks(`  - id: a
    type: io.kestra.plugin.core.log.Log
    mesage: hello
    colour: blue
`),
    );
    expect(problems.map(formatProblem)).toEqual([
      'tasks[0].message: required (line 4)',
      "tasks[0].mesage: unknown property 'mesage' for io.kestra.plugin.core.log.Log; did you mean 'message'? (line 6)",
      "tasks[0].colour: unknown property 'colour' for io.kestra.plugin.core.log.Log (line 7)",
    ]);
  });

  it('refuses unknown properties at the flow level and in nested objects', () => {
    const messages = messagesOf(`id: f
namespace: n
listeners: []
concurrency: { limit: 1, mode: QUEUE }
tasks:
  - id: a
    type: io.kestra.plugin.core.flow.Sleep
    duration: PT1S
    retry: { type: constant, interval: PT1S, maxInterval: PT2S }
`);
    expect(messages).toEqual([
      "listeners: unknown property 'listeners' for a flow",
      "concurrency.mode: unknown property 'mode' for concurrency",
      "tasks[0].retry.maxInterval: unknown property 'maxInterval' for a constant retry",
    ]);
  });

  it('keeps routing and caching for tasks that run on a worker', () => {
    const messages = messagesOf(
      flowWithTasks(`  - id: group
    type: io.kestra.plugin.core.flow.Sequential
    workerSelector: { tags: [gpu] }
    tasks:
      - { id: a, type: io.kestra.plugin.core.log.Log, message: hi, workerSelector: { tags: [gpu] } }
`),
    );
    expect(messages).toEqual([
      "tasks[0].workerSelector: unknown property 'workerSelector' for io.kestra.plugin.core.flow.Sequential",
    ]);
  });

  it('names unknown trigger and condition types', () => {
    const messages = messagesOf(`id: f
namespace: n
tasks:
  - { id: a, type: io.kestra.plugin.core.log.Log, message: hi }
triggers:
  - { id: t, type: io.kestra.plugin.core.trigger.Cron, cron: "* * * * *" }
  - id: u
    type: io.kestra.plugin.core.trigger.Flow
    conditions:
      - { type: io.kestra.plugin.core.condition.DayWeek, dayOfWeek: MONDAY }
`);
    expect(messages).toEqual([
      "triggers[0].type: unknown trigger type 'io.kestra.plugin.core.trigger.Cron'",
      "triggers[1].conditions[0].type: unknown condition type 'io.kestra.plugin.core.condition.DayWeek'",
    ]);
  });
});
