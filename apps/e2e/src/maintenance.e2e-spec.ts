import { Execution, stateOf, taskRunsOf } from './harness/api-types';
import { scenario, delay } from './harness/scenario';

// Maintenance mode across separate processes on the real Kafka and PostgreSQL:
// the task running when it is entered finishes, the rest of its execution and a
// new execution wait, a restart of the executor and of the controller during it
// comes back still paused, and everything resumes when it ends.
const NAMESPACE = 'e2e.maintenance';
const FLOW_ID = 'linger-then-answer';
const FLOW = `
id: ${FLOW_ID}
namespace: ${NAMESPACE}
tasks:
  - id: linger
    type: io.kestra.plugin.core.flow.Sleep
    duration: PT4S
  - id: answer
    type: io.kestra.plugin.core.debug.Return
    format: "done {{ execution.id }}"
`;

/** How long the spec watches that nothing moves (the controllers and executors would have acted well within it). */
const STILL_MS = 6_000;

interface MaintenanceView {
  readonly scope: string;
  readonly enabled: boolean;
  readonly enteredAt: string | null;
  readonly enteredBy: string | null;
  readonly exitedAt: string | null;
}

describe('maintenance mode', () => {
  const { lanner, cluster } = scenario();

  const runState = (execution: Execution, taskId: string): string | undefined => {
    const [run] = taskRunsOf(execution, taskId);
    return run === undefined ? undefined : stateOf(run);
  };

  beforeAll(() => lanner.createFlow(FLOW));

  afterAll(async () => {
    // The cluster is shared: the next specs need it out of maintenance and whole.
    await lanner.instanceRequest('DELETE', '/maintenance').catch(() => undefined);
    await cluster.ensureRunning('executor');
    await cluster.ensureRunning('controller');
  }, 400_000);

  it('lets the running task finish, holds new work through restarts of the executor and the controller, and resumes on exit', async () => {
    const before = await lanner.instanceRequest<MaintenanceView>('GET', '/maintenance');
    expect(before.status).toBe(200);
    expect(before.body.enabled).toBe(false);
    expect(before.headers.get('lanner-maintenance')).toBeNull();

    const running = await lanner.execute(NAMESPACE, FLOW_ID);
    await lanner.waitFor(running.id, (execution) => runState(execution, 'linger') === 'RUNNING', 'linger RUNNING');

    const entered = await lanner.instanceRequest<MaintenanceView>('POST', '/maintenance');
    expect(entered.status).toBe(200);
    expect(entered.body).toMatchObject({ scope: 'instance', enabled: true, enteredBy: expect.any(String) });
    expect(entered.headers.get('lanner-maintenance')).toBe('true');

    // A new execution is accepted, and the answer says the cluster is in maintenance.
    const submitted = await lanner.request<Execution>('POST', `/executions/${NAMESPACE}/${FLOW_ID}`, { json: {} });
    expect(submitted.status).toBe(200);
    expect(submitted.headers.get('lanner-maintenance')).toBe('true');
    const waiting = submitted.body;
    expect(stateOf(waiting)).toBe('CREATED');

    // The task that was running finishes; the next one waits for a worker, the new execution to start.
    const drained = await lanner.waitFor(
      running.id,
      (execution) => runState(execution, 'linger') === 'SUCCESS',
      'linger SUCCESS during maintenance',
    );
    expect(stateOf(drained)).toBe('RUNNING');
    await delay(STILL_MS);
    const held = await lanner.execution(running.id);
    expect(stateOf(held)).toBe('RUNNING');
    expect(runState(held, 'answer')).not.toBe('SUCCESS');
    expect(runState(held, 'answer')).not.toBe('RUNNING');
    expect(stateOf(await lanner.execution(waiting.id))).toBe('CREATED');

    // A restart of the executor during maintenance: it reads the stored state and still holds the new execution.
    const executorRestart = await cluster.restart('executor', { signal: 'SIGTERM', downtimeMs: 500 });
    expect(executorRestart.startedPid).not.toBe(executorRestart.stoppedPid);
    const another = await lanner.execute(NAMESPACE, FLOW_ID);
    await delay(STILL_MS);
    expect(stateOf(await lanner.execution(waiting.id))).toBe('CREATED');
    expect(stateOf(await lanner.execution(another.id))).toBe('CREATED');

    // A restart of the controller: its workers come back, and it still sends them no job.
    const oldControllers = new Set((await lanner.groupWorkers('default')).map((worker) => worker.controller));
    const controllerRestart = await cluster.restart('controller', { signal: 'SIGTERM', downtimeMs: 500 });
    expect(controllerRestart.startedPid).not.toBe(controllerRestart.stoppedPid);
    const reattached = async () =>
      (await lanner.groupWorkers('default')).filter((worker) => !oldControllers.has(worker.controller)).length;
    const deadline = Date.now() + 90_000;
    while ((await reattached()) < 2 && Date.now() < deadline) await delay(500);
    expect(await reattached()).toBe(2);
    await delay(STILL_MS);
    const stillHeld = await lanner.execution(running.id);
    expect(runState(stillHeld, 'answer')).not.toBe('SUCCESS');
    expect(runState(stillHeld, 'answer')).not.toBe('RUNNING');

    const exited = await lanner.instanceRequest<MaintenanceView>('DELETE', '/maintenance');
    expect(exited.status).toBe(200);
    expect(exited.body).toMatchObject({ enabled: false, exitedAt: expect.any(String) });
    expect(exited.headers.get('lanner-maintenance')).toBeNull();

    // Everything resumes: the held task runs, the waiting executions start and end.
    for (const id of [running.id, waiting.id, another.id]) {
      const ended = await lanner.waitUntilEnded(id, 90_000);
      expect(stateOf(ended)).toBe('SUCCESS');
      expect(taskRunsOf(ended, 'linger')).toHaveLength(1);
      expect(taskRunsOf(ended, 'answer')).toHaveLength(1);
    }
  }, 480_000);
});
