import { existsSync, readFileSync } from 'node:fs';
import { eventually, onlyTaskRun, processExists, scenario, stateOf } from './harness/scenario';

const FLOW = `
id: long-sleep
namespace: e2e.kill
inputs:
  - { id: pidFile, type: STRING }
tasks:
  - id: sleeper
    type: io.kestra.plugin.scripts.shell.Commands
    commands:
      - echo $$ > "{{ inputs.pidFile }}"
      - exec sleep 60
`;

describe('killing a running execution', () => {
  const { lanner, scratchFile } = scenario();

  beforeAll(() => lanner.createFlow(FLOW));

  it('ends KILLED and really stops the task process on the worker', async () => {
    const pidFile = scratchFile('kill-sleep.pid');
    const { id } = await lanner.execute('e2e.kill', 'long-sleep', { pidFile });
    await lanner.waitFor(
      id,
      (execution) => stateOf(execution) === 'RUNNING' && existsSync(pidFile),
      'RUNNING with the sleep started',
    );
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    expect(processExists(pid)).toBe(true);

    const kill = await lanner.kill(id);
    expect(kill.status).toBe(202);

    const ended = await lanner.waitUntilEnded(id);
    expect(stateOf(ended)).toBe('KILLED');
    expect(stateOf(onlyTaskRun(ended, 'sleeper'))).toBe('KILLED');
    await eventually(() => !processExists(pid), `the killed sleep (pid ${pid}) is stopped`);
  });
});
