import { WORKER_SLOTS } from './harness/cluster';
import { scenario, stateOf, taskRunsOf } from './harness/scenario';

// More shell tasks at once than one worker has slots, each holding its slot for a
// second: the controller must hand work to both workers.
const VALUES = ['v1', 'v2', 'v3', 'v4', 'v5', 'v6'];
const FLOW = `
id: fan-out
namespace: e2e.fanout
tasks:
  - id: branches
    type: io.kestra.plugin.core.flow.Parallel
    tasks:
      - id: each
        type: io.kestra.plugin.core.flow.ForEach
        values: ${JSON.stringify(VALUES)}
        concurrencyLimit: 0
        tasks:
          - id: work
            type: io.kestra.plugin.scripts.shell.Commands
            commands:
              - sleep 1
              - echo "worked on {{ taskrun.value }}"
      - id: side
        type: io.kestra.plugin.core.log.Log
        message: "side branch"
`;

describe('Parallel + ForEach fan-out', () => {
  const { lanner } = scenario();

  beforeAll(() => lanner.createFlow(FLOW));

  it('runs every value, spread over both workers', async () => {
    expect(VALUES.length).toBeGreaterThan(WORKER_SLOTS);
    const { id } = await lanner.execute('e2e.fanout', 'fan-out');

    const ended = await lanner.waitUntilEnded(id, 60_000);

    expect(stateOf(ended)).toBe('SUCCESS');
    const work = taskRunsOf(ended, 'work');
    expect(work.map((run) => run.value).sort()).toEqual(VALUES);
    expect(work.map((run) => stateOf(run))).toEqual(VALUES.map(() => 'SUCCESS'));
    expect(stateOf(taskRunsOf(ended, 'side')[0])).toBe('SUCCESS');
    const workers = new Set(work.flatMap((run) => (run.attempts ?? []).map((attempt) => attempt.workerId)));
    expect(workers.size).toBe(2);
  });
});
