import { onlyTaskRun, scenario, stateOf } from './harness/scenario';

const FLOW = `
id: approval
namespace: e2e.pause
tasks:
  - id: prepare
    type: io.kestra.plugin.core.log.Log
    message: prepare
  - id: wait-for-approval
    type: io.kestra.plugin.core.flow.Pause
  - id: deploy
    type: io.kestra.plugin.core.debug.Return
    format: deployed
`;

describe('pause and resume', () => {
  const { lanner } = scenario();

  beforeAll(() => lanner.createFlow(FLOW));

  it('waits PAUSED until resumed through the API, then runs the rest to SUCCESS', async () => {
    const { id } = await lanner.execute('e2e.pause', 'approval');

    const paused = await lanner.waitForState(id, 'PAUSED');
    expect(stateOf(onlyTaskRun(paused, 'prepare'))).toBe('SUCCESS');
    expect(paused.taskRunList?.some((run) => run.taskId === 'deploy')).toBe(false);

    const resume = await lanner.resume(id);
    expect(resume.status).toBe(204);

    const ended = await lanner.waitUntilEnded(id);
    expect(stateOf(ended)).toBe('SUCCESS');
    expect(stateOf(onlyTaskRun(ended, 'deploy'))).toBe('SUCCESS');

    // Only a PAUSED execution can be resumed.
    expect((await lanner.resume(id)).status).toBe(409);
  });
});
