import {
  eventually,
  Execution,
  Fleet,
  hasStarted,
  onlyTaskRun,
  scenario,
  stateOf,
  subscriptionIn,
  taskRunsOf,
  TERMINAL_STATES,
  WorkerCapacity,
} from './harness/scenario';

// WORKERS.md "Capacity ledger", on one worker of 8 slots whose group subscribes to
// A (50 %, STRICT: 4 reserved, never lent), B (25 %, ELASTIC: 2) and C (25 %, ELASTIC: 2);
// no shared pool. B may borrow C's idle slots but never A's; A's work starts on its
// reserved slots while B still has work waiting; a percent changed through the API
// reaches the live ledger within seconds, without a restart.
const NAMESPACE = 'e2e.fleet.capacity';
const GROUP = 'capacity-workers';
const WORKER = 'fleet-capacity';
const SLOTS = 8;
const [A, B, C] = ['cap-a', 'cap-b', 'cap-c'];
const B_EXECUTIONS = 8;
const A_EXECUTIONS = 4;
/** WORKERS.md: a reconfiguration applies "within seconds"; the bar is 5 s. */
const RECONFIGURATION_MS = 5_000;

const sleeper = (id: string, queue: string, duration: string) => `
id: ${id}
namespace: ${NAMESPACE}
tasks:
  - id: hold
    type: io.kestra.plugin.core.flow.Sleep
    duration: ${duration}
    workerSelector: { tags: [${queue}] }
`;

const started = (execution: Execution): boolean => taskRunsOf(execution, 'hold').some(hasStarted);

describe('fleet capacity: reserved, lent and reconfigured slots of one worker', () => {
  const { lanner, cluster, controllerEndpoint } = scenario();
  const fleet = new Fleet(cluster, lanner);
  const bIds: string[] = [];
  const aIds: string[] = [];
  let workerId = '';

  beforeAll(async () => {
    for (const queue of [A, B, C]) await lanner.putWorkerQueue(queue, [queue]);
    await lanner.putWorkerGroup(GROUP, [
      { workerQueueId: A, reservedPercent: 50, mode: 'STRICT' },
      { workerQueueId: B, reservedPercent: 25, mode: 'ELASTIC' },
      { workerQueueId: C, reservedPercent: 25, mode: 'ELASTIC' },
    ]);
    const { token } = await lanner.createRegistrationToken(GROUP, `${WORKER}-token`);
    await fleet.startWorker(WORKER, { registrationToken: token, slots: SLOTS, controllers: controllerEndpoint });
    workerId = await fleet.workerIdOf(GROUP, WORKER);
    // Long enough to outlast the test: B's work must still be running and waiting when A's arrives.
    await lanner.createFlow(sleeper('b-load', B, 'PT120S'));
    await lanner.createFlow(sleeper('a-work', A, 'PT60S'));
  }, 180_000);

  afterAll(async () => {
    await Promise.all([...aIds, ...bIds].map((id) => lanner.kill(id).catch(() => undefined)));
    await Promise.all(
      [...aIds, ...bIds].map((id) =>
        lanner
          .waitFor(id, (execution) => (TERMINAL_STATES as readonly string[]).includes(stateOf(execution)), 'killed')
          .catch(() => undefined),
      ),
    );
    await fleet.stopAll();
  }, 120_000);

  async function executions(ids: readonly string[]): Promise<Execution[]> {
    return Promise.all(ids.map((id) => lanner.execution(id)));
  }

  async function ledger(): Promise<WorkerCapacity> {
    const workers = await lanner.groupCapacity(GROUP);
    const mine = workers.filter((worker) => worker.workerId === workerId);
    if (mine.length !== 1)
      throw new Error(`expected the ledger of ${WORKER} (${workerId}) once, got: ${JSON.stringify(workers).slice(0, 1500)}`);
    return mine[0];
  }

  /** Polls the capacity endpoint until `accept` holds; fails with the last ledger seen. */
  async function ledgerUntil(
    accept: (worker: WorkerCapacity) => boolean,
    what: string,
    timeoutMs: number,
  ): Promise<WorkerCapacity> {
    let last: WorkerCapacity | undefined;
    let lastError = '';
    try {
      await eventually(
        () => last !== undefined && accept(last),
        what,
        timeoutMs,
        async () => {
          try {
            last = await ledger();
          } catch (error) {
            lastError = error instanceof Error ? error.message : String(error);
          }
        },
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}; last ledger: ${JSON.stringify(last)} ${lastError}`);
    }
    return last as WorkerCapacity;
  }

  it('lends C’s idle reserved slots to B, never A’s strict ones', async () => {
    const before = await ledger();
    expect(before.slots).toBe(SLOTS);
    expect([A, B, C].map((queue) => subscriptionIn(before, queue).reserved)).toEqual([4, 2, 2]);

    for (let index = 0; index < B_EXECUTIONS; index += 1) bIds.push((await lanner.execute(NAMESPACE, 'b-load')).id);

    // B runs on its 2 reserved slots plus C's 2 idle ones: 4 of 8, the rest waits.
    let bRuns: Execution[] = [];
    await eventually(
      () => bRuns.filter(started).length >= 4,
      'four B task runs started',
      60_000,
      async () => {
        bRuns = await executions(bIds);
      },
    );
    const worker = await ledgerUntil(
      (one) => subscriptionIn(one, B).used === 4 && subscriptionIn(one, C).lent === 2,
      'B using 4 slots, 2 of them lent by C',
      15_000,
    );
    expect(subscriptionIn(worker, B)).toMatchObject({ reserved: 2, used: 4, borrowed: 2, lent: 0 });
    expect(subscriptionIn(worker, C)).toMatchObject({ reserved: 2, used: 0, borrowed: 0, lent: 2 });
    expect(subscriptionIn(worker, A)).toMatchObject({ reserved: 4, used: 0, borrowed: 0, lent: 0 });

    bRuns = await executions(bIds);
    expect(bRuns.filter(started)).toHaveLength(4);
    for (const run of bRuns.filter(started)) expect(onlyTaskRun(run, 'hold').attempts?.[0]?.workerId).toBe(workerId);
  }, 120_000);

  it('starts A’s work at once on its reserved slots while B still has work waiting', async () => {
    for (let index = 0; index < A_EXECUTIONS; index += 1) aIds.push((await lanner.execute(NAMESPACE, 'a-work')).id);

    let aRuns: Execution[] = [];
    await eventually(
      () => aRuns.filter(started).length === A_EXECUTIONS,
      `all ${A_EXECUTIONS} A task runs started`,
      20_000,
      async () => {
        aRuns = await executions(aIds);
      },
    );
    const bRuns = await executions(bIds);
    expect(bRuns.filter((execution) => !started(execution))).toHaveLength(B_EXECUTIONS - 4);

    const worker = await ledgerUntil(
      (one) => subscriptionIn(one, A).used === A_EXECUTIONS,
      'A using its 4 reserved slots',
      10_000,
    );
    expect(subscriptionIn(worker, A)).toMatchObject({ reserved: 4, used: 4, borrowed: 0, lent: 0 });
    expect(subscriptionIn(worker, B).used).toBe(4);
  }, 60_000);

  it('applies a percent changed through the API to the live ledger within 5 s, without cutting running work', async () => {
    const changedAt = Date.now();
    await lanner.putSubscription(GROUP, A, { reservedPercent: 25, mode: 'STRICT' });

    const worker = await ledgerUntil(
      (one) => subscriptionIn(one, A).reserved === 2,
      "A's reservation down to 2 slots",
      RECONFIGURATION_MS - (Date.now() - changedAt),
    );
    expect(worker.slots).toBe(SLOTS);
    expect([B, C].map((queue) => subscriptionIn(worker, queue).reserved)).toEqual([2, 2]);

    // No preemption: A's four jobs keep running on the same worker.
    const aRuns = await executions(aIds);
    expect(aRuns.map((execution) => stateOf(onlyTaskRun(execution, 'hold')))).toEqual(aIds.map(() => 'RUNNING'));
  }, 30_000);
});
