import { readFileSync } from 'node:fs';
import { eventually, onlyTaskRun, processExists, scenario, stateOf } from './harness/scenario';

const FLOW = `
id: too-slow
namespace: e2e.timeout
inputs:
  - { id: pidFile, type: STRING }
tasks:
  - id: slow
    type: io.kestra.plugin.scripts.shell.Commands
    timeout: PT2S
    commands:
      - echo $$ > "{{ inputs.pidFile }}"
      - exec sleep 30
`;

const BOUNDED_FLOW = `
id: bounded-steps
namespace: e2e.timeout
inputs:
  - { id: pidFile, type: STRING }
tasks:
  - id: steps
    type: io.kestra.plugin.core.flow.Sequential
    timeout: PT2S
    tasks:
      - id: slow
        type: io.kestra.plugin.scripts.shell.Commands
        commands:
          - echo $$ > "{{ inputs.pidFile }}"
          - exec sleep 30
      - id: never
        type: io.kestra.plugin.core.log.Log
        message: not reached
errors:
  - id: alert
    type: io.kestra.plugin.core.log.Log
    message: the steps timed out
`;

describe('a task over its timeout', () => {
  const { lanner, scratchFile } = scenario();

  beforeAll(async () => {
    await lanner.createFlow(FLOW);
    await lanner.createFlow(BOUNDED_FLOW);
  });

  it('fails the task run and the execution, and stops the task process', async () => {
    const pidFile = scratchFile('timeout-sleep.pid');
    const { id } = await lanner.execute('e2e.timeout', 'too-slow', { pidFile });

    const ended = await lanner.waitUntilEnded(id);

    expect(stateOf(ended)).toBe('FAILED');
    expect(stateOf(onlyTaskRun(ended, 'slow'))).toBe('FAILED');
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    await eventually(() => !processExists(pid), `the timed-out sleep (pid ${pid}) is stopped`);
  });

  it('of a flowable, fails it saying so, stops the task process under it and runs the errors branch', async () => {
    const pidFile = scratchFile('flowable-timeout-sleep.pid');
    const { id } = await lanner.execute('e2e.timeout', 'bounded-steps', { pidFile });

    const ended = await lanner.waitUntilEnded(id);

    expect(stateOf(ended)).toBe('FAILED');
    const steps = onlyTaskRun(ended, 'steps');
    expect(stateOf(steps)).toBe('FAILED');
    expect(steps.error).toEqual({ message: 'Timed out after PT2S' });
    expect(stateOf(onlyTaskRun(ended, 'slow'))).toBe('KILLED');
    expect(stateOf(onlyTaskRun(ended, 'alert'))).toBe('SUCCESS');
    expect((ended.taskRunList ?? []).some((run) => run.taskId === 'never')).toBe(false);
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    await eventually(() => !processExists(pid), `the sleep under the timed-out flowable (pid ${pid}) is stopped`);
  });
});
