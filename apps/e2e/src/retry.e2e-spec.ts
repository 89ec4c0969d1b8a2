import { onlyTaskRun, scenario, stateOf } from './harness/scenario';

// Fails while the marker file is absent (and creates it), so the retry succeeds.
const FLOW = `
id: flaky
namespace: e2e.retry
inputs:
  - { id: marker, type: STRING }
tasks:
  - id: flaky
    type: io.kestra.plugin.scripts.shell.Commands
    commands:
      - |
        if [ -f "{{ inputs.marker }}" ]; then
          echo "marker found, succeeding"
        else
          touch "{{ inputs.marker }}"
          echo "no marker yet, failing" >&2
          exit 3
        fi
    retry: { type: constant, interval: PT1S, maxAttempts: 3 }
`;

describe('a failing shell task with a retry policy', () => {
  const { lanner, scratchFile } = scenario();

  beforeAll(() => lanner.createFlow(FLOW));

  it('is retried after its failure and the execution ends SUCCESS', async () => {
    const { id } = await lanner.execute('e2e.retry', 'flaky', { marker: scratchFile(`retry-${Date.now()}.marker`) });

    const ended = await lanner.waitUntilEnded(id);

    expect(stateOf(ended)).toBe('SUCCESS');
    const flaky = onlyTaskRun(ended, 'flaky');
    expect(stateOf(flaky)).toBe('SUCCESS');
    expect((flaky.attempts ?? []).map((attempt) => stateOf(attempt))).toEqual(['FAILED', 'SUCCESS']);
  });
});
