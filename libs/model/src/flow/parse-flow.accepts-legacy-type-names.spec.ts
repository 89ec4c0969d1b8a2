import { TASK_TYPES } from './flow.types';
import { readFlow } from './spec-helpers';

describe('parseFlow accepts Kestra’s legacy type names', () => {
  it('maps io.kestra.core.tasks.* to the current task names', () => {
    const flow = readFlow(`id: f
namespace: n
tasks:
  - id: group
    type: io.kestra.core.tasks.flows.Parallel
    tasks:
      - { id: say, type: io.kestra.core.tasks.log.Log, message: hi }
      - { id: echo, type: io.kestra.core.tasks.debugs.Echo, format: hey }
      - id: each
        type: io.kestra.core.tasks.flows.EachSequential
        value: [a]
        tasks:
          - { id: back, type: io.kestra.core.tasks.debugs.Return, format: "{{ taskrun.value }}" }
  - { id: stop, type: io.kestra.core.tasks.executions.Fail }
triggers:
  - { id: s, type: io.kestra.core.models.triggers.types.Schedule, cron: "*/5 * * * *" }
  - id: after
    type: io.kestra.core.models.triggers.types.Flow
    conditions:
      - { type: io.kestra.core.models.conditions.types.ExecutionStatusCondition, in: [FAILED] }
`);
    const [group, stop] = flow.tasks;
    expect(group).toMatchObject({ type: TASK_TYPES.Parallel, kind: 'Parallel' });
    expect(group.kind === 'Parallel' && group.tasks.map((task) => [task.type, task.kind])).toEqual([
      [TASK_TYPES.Log, 'Log'],
      [TASK_TYPES.Echo, 'Log'],
      [TASK_TYPES.EachSequential, 'ForEach'],
    ]);
    expect(stop).toMatchObject({ type: TASK_TYPES.Fail, kind: 'Fail' });
    expect(flow.triggers.map((trigger) => trigger.type)).toEqual([
      'io.kestra.plugin.core.trigger.Schedule',
      'io.kestra.plugin.core.trigger.Flow',
    ]);
    expect(flow.triggers[1]).toMatchObject({ conditions: [{ kind: 'ExecutionStatus', in: ['FAILED'] }] });
  });
});
