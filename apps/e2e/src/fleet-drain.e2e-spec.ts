import {
  ConnectedWorker,
  eventually,
  Execution,
  Fleet,
  hasStarted,
  lastAttempt,
  onlyTaskRun,
  scenario,
  StartedProcess,
  stateOf,
  taskRunsOf,
  TERMINAL_STATES,
} from './harness/scenario';

// WORKERS.md "Shutdown": SIGTERM makes a worker stop taking work (it tells the
// controller it is draining), lets its running tasks finish within the grace period,
// then exits; the other worker of the group picks up the rest.
const NAMESPACE = 'e2e.fleet.drain';
const GROUP = 'drain-workers';
const QUEUE = 'drain';
const DRAINED = 'fleet-drain-1';
const SURVIVOR = 'fleet-drain-2';
const SLOTS = 2;
const BEFORE_SIGTERM = 6;
const AFTER_SIGTERM = 4;
/** Longer than the worker's drain grace period (25 s): the worker must stop by itself. */
const STOP_GRACE_MS = 60_000;

const FLOW = `
id: linger
namespace: ${NAMESPACE}
tasks:
  - id: work
    type: io.kestra.plugin.core.flow.Sleep
    duration: PT4S
    workerSelector: { tags: [${QUEUE}] }
`;

const ended = (execution: Execution): boolean => (TERMINAL_STATES as readonly string[]).includes(stateOf(execution));
const workerOf = (execution: Execution): string | null | undefined => {
  const run = taskRunsOf(execution, 'work')[0];
  return run && lastAttempt(run)?.workerId;
};
const runningOn = (execution: Execution, workerId: string): boolean => {
  const run = taskRunsOf(execution, 'work')[0];
  return run !== undefined && hasStarted(run) && stateOf(run) === 'RUNNING' && lastAttempt(run)?.workerId === workerId;
};

describe('fleet drain: SIGTERM on a busy worker', () => {
  const { lanner, cluster, controllerEndpoint } = scenario();
  const fleet = new Fleet(cluster, lanner);
  const ids: string[] = [];
  const processes = new Map<string, StartedProcess>();

  beforeAll(async () => {
    await lanner.putWorkerQueue(QUEUE, [QUEUE]);
    await lanner.putWorkerGroup(GROUP, [{ workerQueueId: QUEUE }]);
    const { token } = await lanner.createRegistrationToken(GROUP, 'drain');
    await Promise.all(
      [DRAINED, SURVIVOR].map(async (name) =>
        processes.set(
          name,
          await fleet.startWorker(name, { registrationToken: token, slots: SLOTS, controllers: controllerEndpoint }),
        ),
      ),
    );
    await lanner.createFlow(FLOW);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(ids.map((id) => lanner.kill(id).catch(() => undefined)));
    await fleet.stopAll();
  }, 90_000);

  it('lets its running tasks finish SUCCESS, takes no new task, and the other worker runs the rest', async () => {
    const drainedId = await fleet.workerIdOf(GROUP, DRAINED);
    const survivorId = await fleet.workerIdOf(GROUP, SURVIVOR);
    for (let index = 0; index < BEFORE_SIGTERM; index += 1) ids.push((await lanner.execute(NAMESPACE, 'linger')).id);

    let seen: Execution[] = [];
    await eventually(
      () => seen.filter((execution) => runningOn(execution, drainedId)).length === SLOTS,
      `${DRAINED} running ${SLOTS} tasks`,
      60_000,
      async () => {
        seen = await Promise.all(ids.map((id) => lanner.execution(id)));
      },
    );
    const runningAtSigterm = seen.filter((execution) => runningOn(execution, drainedId)).map((execution) => execution.id);

    const stopped = fleet.stop(DRAINED, STOP_GRACE_MS);
    // Work submitted once the API shows the worker draining must go to the other worker.
    await fleet.waitForLog(processes.get(DRAINED) as StartedProcess, /draining/i, 'that it drains', 20_000);
    let listed: ConnectedWorker[] = [];
    await eventually(
      () => listed.find((worker) => worker.name === DRAINED)?.draining === true,
      `the API listing ${DRAINED} as draining`,
      10_000,
      async () => {
        listed = await lanner.groupWorkers(GROUP);
      },
    );
    const afterIds: string[] = [];
    for (let index = 0; index < AFTER_SIGTERM; index += 1) afterIds.push((await lanner.execute(NAMESPACE, 'linger')).id);
    ids.push(...afterIds);

    // It stopped by itself within its grace period, with exit code 0 (docs/WORKER-FLEETS.md).
    const exit = await stopped;
    expect(exit.exit).toEqual({ code: 0, signal: null });

    const all = await Promise.all(ids.map((id) => lanner.waitFor(id, ended, 'ended', 120_000)));
    for (const execution of all) {
      const run = onlyTaskRun(execution, 'work');
      expect({
        id: execution.id,
        state: stateOf(execution),
        attempts: (run.attempts ?? []).map((attempt) => stateOf(attempt)),
      }).toEqual({
        id: execution.id,
        state: 'SUCCESS',
        attempts: ['SUCCESS'],
      });
    }
    const byId = new Map(all.map((execution) => [execution.id, execution]));
    // The tasks it was running when SIGTERM came finished there.
    for (const id of runningAtSigterm) expect(workerOf(byId.get(id) as Execution)).toBe(drainedId);
    // Nothing submitted after it began draining ran on it.
    for (const id of afterIds) expect(workerOf(byId.get(id) as Execution)).toBe(survivorId);
    expect(all.filter((execution) => workerOf(execution) === survivorId).length).toBeGreaterThanOrEqual(AFTER_SIGTERM);
  }, 240_000);
});
