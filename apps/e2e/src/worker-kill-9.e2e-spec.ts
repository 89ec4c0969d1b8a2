import { existsSync, readFileSync } from 'node:fs';
import { documentedDefault, workerKillRedispatchBoundMs } from './harness/configuration';
import { describeExecution, eventually, onlyTaskRun, processExists, scenario, stateOf } from './harness/scenario';

// A worker killed -9 in the middle of a shell task leaves no task process behind (the
// task's process group dies with it), and its job runs again on a worker, as the next
// attempt of the same task run, within the adoption grace + 2 s of the kill: the worker
// comes back at once under the same id without the job, which is then lost there and then.
const NAMESPACE = 'e2e.worker.kill9';
// Each run records when it started; the first its pid and a marker, then sleeps for good; the run after the loss finds the marker and ends.
const FLOW = `
id: sleeper
namespace: ${NAMESPACE}
inputs:
  - { id: scratch, type: STRING }
tasks:
  - id: sleeper
    type: io.kestra.plugin.scripts.shell.Commands
    commands:
      - date +%s%3N >> "{{ inputs.scratch }}.starts"
      - echo $$ >> "{{ inputs.scratch }}.pids"
      - if [ -e "{{ inputs.scratch }}.ran" ]; then echo "second run"; exit 0; fi
      - touch "{{ inputs.scratch }}.ran"
      - sleep 1000 & echo $! >> "{{ inputs.scratch }}.pids"
      - wait
`;

const numbersIn = (file: string): number[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map(Number)
    : [];
const pidsOf = (scratch: string): number[] => numbersIn(`${scratch}.pids`);
const ADOPTION_GRACE_MS = Number(documentedDefault('LANNER_WORKER_ADOPTION_GRACE_MS'));

describe('SIGKILL of a worker in the middle of a shell task', () => {
  const { lanner, cluster, scratchFile } = scenario();

  beforeAll(() => lanner.createFlow(FLOW));

  afterAll(async () => {
    for (const name of ['e2e-worker-a', 'e2e-worker-b']) await cluster.ensureRunning(name);
  }, 120_000);

  it('leaves no task process alive, and the job runs again as the next attempt', async () => {
    const scratch = scratchFile(`worker-kill9-${Date.now()}`);
    const { id } = await lanner.execute(NAMESPACE, 'sleeper', { scratch });
    await eventually(() => pidsOf(scratch).length === 2, 'the task shell and its sleep started', 45_000);
    const [shellPid, sleepPid] = pidsOf(scratch);
    expect([processExists(shellPid), processExists(sleepPid)]).toEqual([true, true]);

    // The worker reports the start of a task still running after a moment: then its attempt names the worker.
    const running = await lanner.waitFor(
      id,
      (execution) => stateOf(execution) === 'RUNNING' && onlyTaskRun(execution, 'sleeper').attempts?.[0]?.workerId != null,
      'RUNNING, with the worker of the task named',
    );
    const workerId = onlyTaskRun(running, 'sleeper').attempts?.[0]?.workerId;
    const holder = (await lanner.groupWorkers('default')).find((worker) => worker.id === workerId);
    if (!holder) throw new Error(`the worker ${workerId} running the task is not listed:\n${describeExecution(running)}`);

    const killedAtMs = Date.now();
    const restart = await cluster.restart(holder.name, { signal: 'SIGKILL', downtimeMs: 0 });
    const backAtMs = Date.now();
    expect(restart.exit.signal).toBe('SIGKILL');
    await eventually(
      () => !processExists(shellPid) && !processExists(sleepPid),
      `the task processes of the killed worker (pids ${shellPid}, ${sleepPid}) are gone`,
      10_000,
    );

    const ended = await lanner.waitUntilEnded(id, 90_000);
    expect(stateOf(ended)).toBe('SUCCESS');
    expect((onlyTaskRun(ended, 'sleeper').attempts ?? []).map((attempt) => stateOf(attempt))).toEqual(['RESUBMITTED', 'SUCCESS']);
    // The second run's shell started within the bound the chaos report checks, counted from the kill; and, the
    // worker back well within the grace without the job, before the grace was over (the job did not wait it out).
    const starts = numbersIn(`${scratch}.starts`);
    expect(starts).toHaveLength(2);
    const redispatchMs = starts[1] - killedAtMs;
    expect(redispatchMs).toBeLessThanOrEqual(workerKillRedispatchBoundMs());
    if (backAtMs - killedAtMs < ADOPTION_GRACE_MS - 3_000) expect(redispatchMs).toBeLessThan(ADOPTION_GRACE_MS);
  }, 240_000);
});
