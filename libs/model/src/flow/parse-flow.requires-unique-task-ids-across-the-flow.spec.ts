import { formatProblem } from './parse-flow';
import { problemsOf } from './spec-helpers';

describe('parseFlow requires task ids unique across the whole flow', () => {
  it('gives both paths of a duplicate, however deeply nested', () => {
    const problems = problemsOf(`id: f
namespace: n
tasks:
  - id: build
    type: io.kestra.plugin.core.flow.Sequential
    tasks:
      - id: step
        type: io.kestra.plugin.core.log.Log
        message: one
  - id: check
    type: io.kestra.plugin.core.flow.If
    condition: "{{ true }}"
    then:
      - { id: step, type: io.kestra.plugin.core.log.Log, message: two }
errors:
  - { id: build, type: io.kestra.plugin.core.log.Log, message: three }
finally:
  - { id: check, type: io.kestra.plugin.core.log.Log, message: four }
`);
    expect(problems.map(formatProblem)).toEqual([
      "tasks[1].then[0].id: duplicate task id 'step' (also at tasks[0].tasks[0].id) (line 14)",
      "errors[0].id: duplicate task id 'build' (also at tasks[0].id) (line 16)",
      "finally[0].id: duplicate task id 'check' (also at tasks[1].id) (line 18)",
    ]);
  });

  it('checks Switch cases, Dag tasks and a flowable’s own errors too', () => {
    const problems = problemsOf(`id: f
namespace: n
tasks:
  - id: route
    type: io.kestra.plugin.core.flow.Switch
    value: "{{ inputs.kind }}"
    cases:
      a:
        - { id: x, type: io.kestra.plugin.core.log.Log, message: a }
    defaults:
      - { id: x, type: io.kestra.plugin.core.log.Log, message: b }
    errors:
      - { id: route, type: io.kestra.plugin.core.log.Log, message: c }
  - id: dag
    type: io.kestra.plugin.core.flow.Dag
    tasks:
      - task: { id: x, type: io.kestra.plugin.core.log.Log, message: d }
`);
    expect(problems.map((p) => p.path)).toEqual([
      'tasks[0].defaults[0].id',
      'tasks[0].errors[0].id',
      'tasks[1].tasks[0].task.id',
    ]);
  });

  it('checks the task id rule', () => {
    const problems = problemsOf(`id: f
namespace: n
tasks:
  - { id: "my.task", type: io.kestra.plugin.core.log.Log, message: a }
`);
    expect(problems.map(formatProblem)).toEqual([
      'tasks[0].id: must start with a letter or digit and contain only letters, digits, _ and - (line 4)',
    ]);
  });

  it('requires trigger, input and output ids unique among their own kind', () => {
    const messages = problemsOf(`id: f
namespace: n
inputs:
  - { id: a, type: STRING }
  - { id: a, type: INT }
tasks:
  - { id: a, type: io.kestra.plugin.core.log.Log, message: a }
outputs:
  - { id: o, type: STRING, value: x }
  - { id: o, type: STRING, value: y }
triggers:
  - { id: t, type: io.kestra.plugin.core.trigger.Webhook, key: k1 }
  - { id: t, type: io.kestra.plugin.core.trigger.Webhook, key: k2 }
`).map((p) => `${p.path}: ${p.message}`);
    expect(messages).toEqual([
      "inputs[1].id: duplicate input id 'a' (also at inputs[0].id)",
      "outputs[1].id: duplicate output id 'o' (also at outputs[0].id)",
      "triggers[1].id: duplicate trigger id 't' (also at triggers[0].id)",
    ]);
  });
});
