// A Subflow's child reads the parent as `trigger`, as Kestra gives it to a child it starts:
// the parent execution's id, its flow's namespace, id and revision, and the Subflow task
// run's id, task id and ForEach value.
import { formatProblem, parseFlow, type Flow } from '@lanner/model';
import { createExecution, renderContextFor, simulateFlow, type ExecutionAction } from '../index';
import { runsOf } from '../test-support/flows';

function flowOf(source: string, revision: number): Flow {
  const parsed = parseFlow(source);
  if (!parsed.ok) throw new Error(parsed.problems.map(formatProblem).join('\n'));
  return { ...parsed.flow, revision };
}

const PARENT = flowOf(
  `
id: nightly
namespace: company.team
tasks:
  - id: call
    type: io.kestra.plugin.core.flow.Subflow
    namespace: company.team
    flowId: report
  - id: each
    type: io.kestra.plugin.core.flow.ForEach
    values: ["eu"]
    tasks:
      - id: per-region
        type: io.kestra.plugin.core.flow.Subflow
        namespace: company.team
        flowId: report
  - id: until-done
    type: io.kestra.plugin.core.flow.WaitFor
    condition: "{{ true }}"
    tasks:
      - id: attempt
        type: io.kestra.plugin.core.flow.Subflow
        namespace: company.team
        flowId: report
`,
  4,
);

const CHILD = flowOf(
  `
id: report
namespace: company.team
tasks:
  - id: check
    type: io.kestra.plugin.core.flow.If
    condition: "{{ trigger.flowId == 'nightly' and trigger.namespace == 'company.team' and trigger.flowRevision == 4 }}"
    then:
      - id: started-by-nightly-revision-4
        type: io.kestra.plugin.core.log.Log
        message: started by nightly at revision 4
    else:
      - id: started-otherwise
        type: io.kestra.plugin.core.log.Log
        message: other
`,
  1,
);

type StartSubflow = Extract<ExecutionAction, { type: 'start-subflow' }>;

function startedChildren(): StartSubflow[] {
  const parent = simulateFlow(PARENT, { executionId: 'parent-1' });
  expect(parent.execution.state).toBe('SUCCESS');
  return parent.actions.filter((action): action is StartSubflow => action.type === 'start-subflow');
}

describe('a Subflow child reads the parent as its trigger', () => {
  it("gives the child the parent's execution, flow, flow revision and task run, with the ForEach value or WaitFor iteration", () => {
    const [top, inForEach, inWaitFor] = startedChildren();
    expect(top?.trigger).toEqual({
      executionId: 'parent-1',
      namespace: 'company.team',
      flowId: 'nightly',
      flowRevision: 4,
      taskRunId: top?.taskRunId,
      taskId: 'call',
    });
    expect(inForEach?.trigger).toEqual({
      executionId: 'parent-1',
      namespace: 'company.team',
      flowId: 'nightly',
      flowRevision: 4,
      taskRunId: inForEach?.taskRunId,
      taskId: 'per-region',
      taskRunValue: 'eu',
    });
    expect(inWaitFor?.trigger).toMatchObject({ taskId: 'attempt', taskRunIteration: 1 });
  });

  it('lets the child branch on trigger.flowRevision and read the task that started it', () => {
    const [, inForEach] = startedChildren();
    if (inForEach === undefined) throw new Error('the ForEach started no child');
    const start = createExecution(
      CHILD,
      { id: inForEach.executionId, tenant: 'main', trigger: inForEach.trigger, parent: inForEach.parent },
      0,
    );
    const child = simulateFlow(CHILD, { start });
    expect(child.execution.state).toBe('SUCCESS');
    expect(runsOf(child.execution, 'started-otherwise')).toHaveLength(0);
    const [logged] = runsOf(child.execution, 'started-by-nightly-revision-4');
    expect(logged?.state).toBe('SUCCESS');
    const context = renderContextFor(CHILD, child.execution, logged?.id);
    expect(context['trigger']).toMatchObject({ flowRevision: 4, taskId: 'per-region', taskRunValue: 'eu' });
  });
});
