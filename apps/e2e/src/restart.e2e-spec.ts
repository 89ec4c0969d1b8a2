import { Execution, onlyTaskRun, scenario, stateOf } from './harness/scenario';

// No retry policy: the first run fails (and leaves the marker), a restart through the
// API runs the failed task again, which now succeeds.
const FLOW = `
id: fix-and-restart
namespace: e2e.restart
inputs:
  - { id: marker, type: STRING }
tasks:
  - id: prepare
    type: io.kestra.plugin.core.debug.Return
    format: prepared
  - id: fragile
    type: io.kestra.plugin.scripts.shell.Commands
    commands:
      - |
        if [ -f "{{ inputs.marker }}" ]; then
          echo "fixed"
        else
          touch "{{ inputs.marker }}"
          echo "broken" >&2
          exit 1
        fi
`;

describe('restarting a failed execution', () => {
  const { lanner, scratchFile } = scenario();

  beforeAll(() => lanner.createFlow(FLOW));

  it('runs the failed task again and ends SUCCESS, keeping what had succeeded', async () => {
    const { id } = await lanner.execute('e2e.restart', 'fix-and-restart', {
      marker: scratchFile(`restart-${Date.now()}.marker`),
    });
    const failed = await lanner.waitUntilEnded(id);
    expect(stateOf(failed)).toBe('FAILED');

    const restart = await lanner.request('POST', `/executions/${id}/restart`);
    expect(restart.status).toBe(200);

    // Until the executor handles the restart the execution still reads FAILED, with one
    // attempt; it may also read FAILED for a moment while the second attempt is already
    // listed but not ended yet. Ended again = the second attempt ended too.
    const endedAgain = (execution: Execution): boolean => {
      if (stateOf(execution) === 'SUCCESS') return true;
      const attempts = onlyTaskRun(execution, 'fragile').attempts ?? [];
      const last = attempts[attempts.length - 1];
      return (
        stateOf(execution) === 'FAILED' &&
        attempts.length > 1 &&
        last !== undefined &&
        ['SUCCESS', 'FAILED', 'KILLED', 'WARNING'].includes(stateOf(last))
      );
    };
    const ended = await lanner.waitFor(id, endedAgain, 'ended again after the restart');
    expect(stateOf(ended)).toBe('SUCCESS');
    expect((onlyTaskRun(ended, 'prepare').attempts ?? []).length).toBe(1);
    expect((onlyTaskRun(ended, 'fragile').attempts ?? []).map((attempt) => stateOf(attempt))).toEqual(['FAILED', 'SUCCESS']);
  });
});
