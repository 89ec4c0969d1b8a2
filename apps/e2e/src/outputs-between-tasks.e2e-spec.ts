import { onlyTaskRun, outputsOf, scenario, stateOf } from './harness/scenario';

// Outputs cross the whole loop: produced on a worker, stored by the executor, rendered
// late into the next task's properties before its job leaves for a worker.
const FLOW = `
id: pass-outputs
namespace: e2e.outputs
tasks:
  - id: a
    type: io.kestra.plugin.core.debug.Return
    format: "from-a"
  - id: s
    type: io.kestra.plugin.scripts.shell.Commands
    commands:
      - echo '::{"outputs":{"count":42}}::'
  - id: b
    type: io.kestra.plugin.core.debug.Return
    format: "{{ outputs.a.value }} then {{ outputs.s.vars.count }}"
outputs:
  - { id: combined, type: STRING, value: "{{ outputs.b.value }}" }
`;

describe('outputs passed between tasks', () => {
  const { lanner } = scenario();

  beforeAll(() => lanner.createFlow(FLOW));

  it('renders a later task with the outputs of earlier ones', async () => {
    const { id } = await lanner.execute('e2e.outputs', 'pass-outputs');

    const ended = await lanner.waitUntilEnded(id);

    expect(stateOf(ended)).toBe('SUCCESS');
    expect(outputsOf(onlyTaskRun(ended, 's'))).toEqual(expect.objectContaining({ exitCode: 0, vars: { count: 42 } }));
    expect(outputsOf(onlyTaskRun(ended, 'b'))).toEqual({ value: 'from-a then 42' });
    expect(ended.outputs).toEqual({ combined: 'from-a then 42' });
  });
});
