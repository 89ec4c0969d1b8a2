import {
  Execution,
  Fleet,
  hasStarted,
  lastAttempt,
  onlyTaskRun,
  reasonOf,
  scenario,
  stateOf,
  taskRunsOf,
  TERMINAL_STATES,
} from './harness/scenario';

// WORKERS.md "Availability decision": a queue that a group subscribes to but no worker
// of that group is connected to. WAIT holds the task run until a worker connects, FAIL
// and CANCEL end it saying why, IGNORE sends it to the `default` queue.
const NAMESPACE = 'e2e.fleet.fallbacks';
const GROUP = 'fallback-workers';
const WORKER = 'fleet-fallback-wait';
const FALLBACKS = ['WAIT', 'FAIL', 'CANCEL', 'IGNORE'] as const;
type Fallback = (typeof FALLBACKS)[number];
const queueOf = (fallback: Fallback) => `fb-${fallback.toLowerCase()}`;
const flowOf = (fallback: Fallback) => `fallback-${fallback.toLowerCase()}`;
const TASK = 'routed';
/** How long a held task run is watched to show it is really held. */
const HELD_FOR_MS = 5_000;

const flow = (fallback: Fallback) => `
id: ${flowOf(fallback)}
namespace: ${NAMESPACE}
tasks:
  - id: ${TASK}
    type: io.kestra.plugin.core.debug.Return
    format: "ran with fallback ${fallback}"
    workerSelector: { tags: [${queueOf(fallback)}], fallback: ${fallback} }
`;

const ended = (execution: Execution): boolean => (TERMINAL_STATES as readonly string[]).includes(stateOf(execution));

describe('fleet fallbacks: a queue with no connected worker', () => {
  const { lanner, cluster, controllerEndpoint } = scenario();
  const fleet = new Fleet(cluster, lanner);
  let waiting: string | undefined;

  beforeAll(async () => {
    for (const fallback of FALLBACKS) await lanner.putWorkerQueue(queueOf(fallback), [queueOf(fallback)]);
    // Subscribed, so the queue is served in principle; no worker of the group is connected yet.
    await lanner.putWorkerGroup(
      GROUP,
      FALLBACKS.map((fallback) => ({ workerQueueId: queueOf(fallback) })),
    );
    for (const fallback of FALLBACKS) await lanner.createFlow(flow(fallback));
  }, 60_000);

  afterAll(async () => {
    if (waiting !== undefined) await lanner.kill(waiting).catch(() => undefined);
    await fleet.stopAll();
  }, 60_000);

  it('FAIL ends the task run and the execution FAILED, saying no worker is connected', async () => {
    const { id } = await lanner.execute(NAMESPACE, flowOf('FAIL'));
    const execution = await lanner.waitUntilEnded(id);
    const run = onlyTaskRun(execution, TASK);

    expect(stateOf(execution)).toBe('FAILED');
    expect(stateOf(run)).toBe('FAILED');
    expect(reasonOf(run)).toMatch(/no worker of the subscribed groups is connected/);
    expect(reasonOf(run)).toContain(queueOf('FAIL'));
    expect(run.attempts?.some((attempt) => Boolean(attempt.workerId))).toBeFalsy();
  });

  it('CANCEL ends the task run CANCELLED, saying no worker is connected', async () => {
    const { id } = await lanner.execute(NAMESPACE, flowOf('CANCEL'));
    const execution = await lanner.waitUntilEnded(id);
    const run = onlyTaskRun(execution, TASK);

    expect(stateOf(run)).toBe('CANCELLED');
    expect(stateOf(execution)).not.toBe('SUCCESS');
    expect(reasonOf(run)).toMatch(/no worker of the subscribed groups is connected/);
    expect(reasonOf(run)).toContain(queueOf('CANCEL'));
    expect(run.attempts?.some((attempt) => Boolean(attempt.workerId))).toBeFalsy();
  });

  it('IGNORE runs the task on the default queue', async () => {
    const { id } = await lanner.execute(NAMESPACE, flowOf('IGNORE'));
    const execution = await lanner.waitUntilEnded(id);
    const run = onlyTaskRun(execution, TASK);
    const defaultWorkers = (await lanner.groupWorkers('default')).map((worker) => worker.id);

    expect(stateOf(execution)).toBe('SUCCESS');
    expect(lastAttempt(run)?.workerQueueId).toBe('default');
    expect(defaultWorkers).toContain(lastAttempt(run)?.workerId);
  });

  it('WAIT holds the task run (execution RUNNING, not started) until a worker of the group connects, then runs it there', async () => {
    const { id } = await lanner.execute(NAMESPACE, flowOf('WAIT'));
    waiting = id;
    const held = await lanner.waitFor(
      id,
      (execution) => stateOf(execution) === 'RUNNING' && taskRunsOf(execution, TASK).length === 1,
      'RUNNING with its task run',
    );
    expect(reasonOf(onlyTaskRun(held, TASK))).toMatch(/no worker of the subscribed groups is connected/);

    // Held, not lost: it stays RUNNING and unstarted while nothing can serve it.
    const watchUntil = Date.now() + HELD_FOR_MS;
    while (Date.now() < watchUntil) {
      const now = await lanner.execution(id);
      expect(stateOf(now)).toBe('RUNNING');
      expect(hasStarted(onlyTaskRun(now, TASK))).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }

    const { token } = await lanner.createRegistrationToken(GROUP, 'late-worker');
    await fleet.startWorker(WORKER, { registrationToken: token, slots: 1, controllers: controllerEndpoint });
    const workerId = await fleet.workerIdOf(GROUP, WORKER);

    const done = await lanner.waitFor(id, ended, 'ended once a worker connected', 60_000);
    waiting = undefined;
    const run = onlyTaskRun(done, TASK);
    expect(stateOf(done)).toBe('SUCCESS');
    expect(lastAttempt(run)?.workerQueueId).toBe(queueOf('WAIT'));
    expect(lastAttempt(run)?.workerId).toBe(workerId);
    expect(run.attempts).toHaveLength(1);
  }, 180_000);
});
