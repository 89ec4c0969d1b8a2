import { onlyTaskRun, outputsOf, scenario, stateOf } from './harness/scenario';

const CHILD = `
id: child
namespace: e2e.subflow
inputs:
  - { id: day, type: STRING }
tasks:
  - id: count
    type: io.kestra.plugin.core.debug.Return
    format: "rows of {{ inputs.day }}"
outputs:
  - { id: rows, type: STRING, value: "{{ outputs.count.value }}" }
`;

const PARENT = `
id: parent
namespace: e2e.subflow
tasks:
  - id: call
    type: io.kestra.plugin.core.flow.Subflow
    namespace: e2e.subflow
    flowId: child
    inputs: { day: "2026-11-30" }
    wait: true
    transmitFailed: true
  - id: after
    type: io.kestra.plugin.core.debug.Return
    format: "parent got {{ outputs.call.rows }}"
outputs:
  - { id: fromChild, type: STRING, value: "{{ outputs.after.value }}" }
`;

describe('a subflow', () => {
  const { lanner } = scenario();

  beforeAll(async () => {
    await lanner.createFlow(CHILD);
    await lanner.createFlow(PARENT);
  });

  it('makes the parent wait for the child execution and receive its outputs', async () => {
    const { id } = await lanner.execute('e2e.subflow', 'parent');

    const ended = await lanner.waitUntilEnded(id, 60_000);

    expect(stateOf(ended)).toBe('SUCCESS');
    const call = outputsOf(onlyTaskRun(ended, 'call'));
    expect(call).toEqual(expect.objectContaining({ state: 'SUCCESS', rows: 'rows of 2026-11-30' }));
    expect(ended.outputs).toEqual({ fromChild: 'parent got rows of 2026-11-30' });

    // The child is an execution of its own, visible through the API.
    const child = await lanner.execution(String(call['executionId']));
    expect(child.flowId).toBe('child');
    expect(stateOf(child)).toBe('SUCCESS');
    expect(child.outputs).toEqual({ rows: 'rows of 2026-11-30' });
  });
});
