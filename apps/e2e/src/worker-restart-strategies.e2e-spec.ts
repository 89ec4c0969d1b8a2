import { existsSync, readFileSync } from 'node:fs';
import { describeExecution, Fleet, onlyTaskRun, scenario, stateOf, type Execution } from './harness/scenario';

// The restart strategy of a worker group, with real processes: a worker of each
// group is killed with kill -9 in the middle of a shell task, and a second worker of
// the group is started right after. NEVER: the task run fails and nothing runs the
// task again; IMMEDIATELY: its next attempt comes as soon as the stream ended;
// AFTER_TERMINATION_GRACE_PERIOD (the default): only after the 10 s adoption grace.
const NAMESPACE = 'e2e.worker.restart';
const run = Date.now().toString(36);
const STRATEGIES = ['NEVER', 'IMMEDIATELY', 'AFTER_TERMINATION_GRACE_PERIOD'] as const;
type Strategy = (typeof STRATEGIES)[number];
/** The controller waits this long for a worker to come back before it reports the jobs of an ended stream lost. */
const ADOPTION_GRACE_MS = 10_000;

const slug = (strategy: Strategy) => strategy.toLowerCase().replace(/_/g, '-');
const queueOf = (strategy: Strategy) => `restart-${slug(strategy)}-${run}`;
const groupOf = (strategy: Strategy) => `restart-${slug(strategy)}-${run}`;
const workerOf = (strategy: Strategy, n: 1 | 2) => `restart-${slug(strategy)}-${n}`;

// The first run marks its start and then sleeps for good; a later run finds the mark and ends.
const FLOW = `
id: sleeper
namespace: ${NAMESPACE}
inputs:
  - { id: scratch, type: STRING }
  - { id: tag, type: STRING }
tasks:
  - id: sleeper
    type: io.kestra.plugin.scripts.shell.Commands
    workerSelector: { tags: ["{{ inputs.tag }}"] }
    commands:
      - echo run >> "{{ inputs.scratch }}.runs"
      - if [ -e "{{ inputs.scratch }}.ran" ]; then echo "second run"; exit 0; fi
      - touch "{{ inputs.scratch }}.ran"
      - sleep 1000
`;

const runsOf = (scratch: string): number =>
  existsSync(`${scratch}.runs`)
    ? readFileSync(`${scratch}.runs`, 'utf8')
        .split('\n')
        .filter((line) => line !== '').length
    : 0;

const endOf = (execution: Execution, index: number): number | undefined => {
  const attempt = onlyTaskRun(execution, 'sleeper').attempts?.[index];
  const state = attempt?.state;
  const endDate = typeof state === 'object' ? state.endDate : undefined;
  return endDate ? Date.parse(endDate) : undefined;
};

describe('restart strategies of a worker group, after a kill -9 of its worker mid-task', () => {
  const { lanner, cluster, scratchFile, controllerEndpoint } = scenario();
  const fleet = new Fleet(cluster, lanner);
  const tokens = new Map<Strategy, string[]>();

  beforeAll(async () => {
    for (const strategy of STRATEGIES) {
      await lanner.putWorkerQueue(queueOf(strategy), [queueOf(strategy)]);
      // The default is left implicit for AFTER_TERMINATION_GRACE_PERIOD: a group without one gets it.
      await lanner.putWorkerGroup(
        groupOf(strategy),
        [{ workerQueueId: queueOf(strategy) }],
        groupOf(strategy),
        strategy === 'AFTER_TERMINATION_GRACE_PERIOD' ? undefined : strategy,
      );
      tokens.set(strategy, [
        (await lanner.createRegistrationToken(groupOf(strategy), 'first')).token,
        (await lanner.createRegistrationToken(groupOf(strategy), 'second')).token,
      ]);
    }
    await Promise.all(
      STRATEGIES.map((strategy) =>
        fleet.startWorker(workerOf(strategy, 1), {
          registrationToken: tokens.get(strategy)?.[0],
          slots: 1,
          controllers: controllerEndpoint,
        }),
      ),
    );
    await lanner.createFlow(FLOW);
  }, 240_000);

  afterAll(() => fleet.stopAll(), 60_000);

  it('NEVER fails the task run; IMMEDIATELY re-runs it at once; AFTER_TERMINATION_GRACE_PERIOD after the grace', async () => {
    const scratch = new Map(STRATEGIES.map((strategy) => [strategy, scratchFile(`restart-${slug(strategy)}-${run}`)]));
    const ids = new Map<Strategy, string>();
    for (const strategy of STRATEGIES) {
      const { id } = await lanner.execute(NAMESPACE, 'sleeper', { scratch: scratch.get(strategy), tag: queueOf(strategy) });
      ids.set(strategy, id);
    }
    // Each task runs on its group's first worker, which reported the start.
    for (const strategy of STRATEGIES) {
      const id = ids.get(strategy) ?? '';
      await lanner.waitFor(
        id,
        (execution) => stateOf(execution) === 'RUNNING' && onlyTaskRun(execution, 'sleeper').attempts?.[0]?.workerId != null,
        `the task of ${strategy} running on its worker`,
        60_000,
      );
      expect(runsOf(scratch.get(strategy) ?? '')).toBe(1);
    }

    const killedAt = Date.now();
    await Promise.all(STRATEGIES.map((strategy) => cluster.stop(workerOf(strategy, 1), { signal: 'SIGKILL', graceMs: 0 })));
    // A worker of the group is there to take the job again, if the strategy sends it.
    await Promise.all(
      STRATEGIES.map((strategy) =>
        fleet.startWorker(workerOf(strategy, 2), {
          registrationToken: tokens.get(strategy)?.[1],
          slots: 1,
          controllers: controllerEndpoint,
        }),
      ),
    );

    const ended = new Map<Strategy, Execution>();
    for (const strategy of STRATEGIES) ended.set(strategy, await lanner.waitUntilEnded(ids.get(strategy) ?? '', 120_000));
    const picture = STRATEGIES.map((strategy) => `${strategy}:\n${describeExecution(ended.get(strategy) as Execution)}`).join(
      '\n',
    );
    const attemptsOf = (strategy: Strategy) =>
      (onlyTaskRun(ended.get(strategy) as Execution, 'sleeper').attempts ?? []).map((attempt) => stateOf(attempt));

    // NEVER: FAILED with the reason, one attempt, and the task ran once although a worker of the group was free.
    const never = ended.get('NEVER') as Execution;
    expect({ state: stateOf(never), attempts: attemptsOf('NEVER') }).toEqual({ state: 'FAILED', attempts: ['FAILED'] });
    expect(JSON.stringify(onlyTaskRun(never, 'sleeper'))).toContain('restart strategy is NEVER');
    // IMMEDIATELY and the default: the same task run, attempt 1 RESUBMITTED, attempt 2 SUCCESS on the new worker.
    for (const strategy of ['IMMEDIATELY', 'AFTER_TERMINATION_GRACE_PERIOD'] as const) {
      expect({ strategy, state: stateOf(ended.get(strategy) as Execution), attempts: attemptsOf(strategy) }).toEqual({
        strategy,
        state: 'SUCCESS',
        attempts: ['RESUBMITTED', 'SUCCESS'],
      });
      expect(runsOf(scratch.get(strategy) ?? '')).toBe(2);
    }
    // When the first attempt was given up, counted from the kill.
    const lostAfter = (strategy: Strategy) => (endOf(ended.get(strategy) as Execution, 0) ?? Number.NaN) - killedAt;
    process.stdout.write(
      `restart strategies: lost reported after the kill -9: ${STRATEGIES.map((strategy) => `${strategy} ${lostAfter(strategy)} ms`).join(', ')}\n`,
    );
    expect(lostAfter('IMMEDIATELY')).toBeLessThan(ADOPTION_GRACE_MS / 2);
    expect(lostAfter('AFTER_TERMINATION_GRACE_PERIOD')).toBeGreaterThanOrEqual(ADOPTION_GRACE_MS - 500);
    expect(lostAfter('NEVER')).toBeGreaterThanOrEqual(ADOPTION_GRACE_MS - 500);

    // Nothing runs the NEVER task later either.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect({ runs: runsOf(scratch.get('NEVER') ?? ''), picture }).toEqual({ runs: 1, picture });
  }, 300_000);
});
