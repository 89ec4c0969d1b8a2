import { scenario, stateOf, taskRunsOf, type Execution } from './harness/scenario';

// A flow of 5,000 tasks is valid Kestra: Lanner takes it, runs it, and keeps
// running everything else beside it. Its source is under the 1 MiB limit.
const TASKS = 5_000;
const BIG = [
  'id: five-thousand',
  'namespace: e2e.hostile-size',
  'tasks:',
  ...Array.from(
    { length: TASKS },
    (_, index) => `  - { id: t${index}, type: io.kestra.plugin.core.log.Log, message: "step ${index}" }`,
  ),
].join('\n');

const ORDINARY = `
id: beside
namespace: e2e.hostile-size
tasks:
  - id: answer
    type: io.kestra.plugin.core.debug.Return
    format: "still served"
`;

describe('a 5,000-task flow runs without holding up other executions', () => {
  const { lanner } = scenario();

  beforeAll(async () => {
    expect(Buffer.byteLength(BIG)).toBeLessThan(1024 * 1024);
    await lanner.createFlow(BIG);
    await lanner.createFlow(ORDINARY);
  });

  it('is accepted, makes progress, lets five other executions end SUCCESS meanwhile, and is killed cleanly', async () => {
    const big = await lanner.execute('e2e.hostile-size', 'five-thousand');
    const others: Execution[] = [];
    for (let n = 0; n < 5; n += 1) others.push(await lanner.execute('e2e.hostile-size', 'beside'));
    for (const execution of others) expect(stateOf(await lanner.waitUntilEnded(execution.id, 90_000))).toBe('SUCCESS');

    const progressing = await lanner.waitFor(
      big.id,
      (execution) => taskRunsOf(execution, 't2').some((run) => stateOf(run) === 'SUCCESS'),
      'the big flow to run its first tasks',
      90_000,
    );
    expect(stateOf(progressing)).not.toBe('FAILED');

    const kill = await lanner.request('DELETE', `/executions/${big.id}/kill`);
    expect(kill.status).toBe(202);
    const ended = await lanner.waitUntilEnded(big.id, 90_000);
    // Killed mid-way, unless it finished all 5,000 first on a fast machine: either way it ended, and cleanly.
    expect(['KILLED', 'SUCCESS']).toContain(stateOf(ended));
    const runs = ended.taskRunList ?? [];
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(runs.filter((run) => !['SUCCESS', 'KILLED', 'CANCELLED'].includes(stateOf(run)))).toEqual([]);
  }, 300_000);
});
