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

describe('a task over its timeout', () => {
  const { lanner, scratchFile } = scenario();

  beforeAll(() => lanner.createFlow(FLOW));

  it('fails the task run and the execution, and stops the task process', async () => {
    const pidFile = scratchFile('timeout-sleep.pid');
    const { id } = await lanner.execute('e2e.timeout', 'too-slow', { pidFile });

    const ended = await lanner.waitUntilEnded(id);

    expect(stateOf(ended)).toBe('FAILED');
    expect(stateOf(onlyTaskRun(ended, 'slow'))).toBe('FAILED');
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    await eventually(() => !processExists(pid), `the timed-out sleep (pid ${pid}) is stopped`);
  });
});
