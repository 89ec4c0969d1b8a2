import { Execution, Fleet, lastAttempt, onlyTaskRun, scenario, stateOf } from './harness/scenario';

// WORKERS.md "Worker selector": tags pick a queue (ALL / ANY, most specific first),
// the queue's subscribing group serves it, untagged work goes to `default`, and tags
// rendered from inputs route each execution on its own.
const NAMESPACE = 'e2e.fleet.routing';
const QUEUES = { gpu: ['gpu'], eu: ['eu'], 'gpu-eu': ['gpu', 'eu'] } as const;
type QueueId = keyof typeof QUEUES;
/** One group per queue, one worker per group, each joining with its group's registration token. */
const GROUP_OF: Record<QueueId, string> = { gpu: 'gpu-workers', eu: 'eu-workers', 'gpu-eu': 'gpu-eu-workers' };
const WORKER_OF: Record<QueueId, string> = { gpu: 'fleet-routing-gpu', eu: 'fleet-routing-eu', 'gpu-eu': 'fleet-routing-gpu-eu' };

const returnTask = (id: string, selector?: string) => `
  - id: ${id}
    type: io.kestra.plugin.core.debug.Return
    format: "${id} ran"${selector ? `\n    workerSelector: ${selector}` : ''}`;

const FLOW = `
id: routed
namespace: ${NAMESPACE}
inputs:
  - { id: region, type: STRING }
tasks:${[
  returnTask('gpu-all', '{ tags: [gpu], match: ALL }'),
  returnTask('eu-all', '{ tags: [eu], match: ALL }'),
  returnTask('gpu-and-eu', '{ tags: [gpu, eu], match: ALL }'),
  returnTask('gpu-or-eu', '{ tags: [gpu, eu], match: ANY }'),
  returnTask('gpu-or-unknown', '{ tags: [gpu, no-such-tag], match: ANY }'),
  returnTask('untagged'),
  returnTask('by-region', '{ tags: ["{{ inputs.region }}"] }'),
].join('')}
`;

/** Where each task must run (queue), whatever the region. */
const EXPECTED: Record<string, QueueId> = {
  'gpu-all': 'gpu',
  'eu-all': 'eu',
  'gpu-and-eu': 'gpu-eu',
  // Every queue matches ANY [gpu, eu]; the one that matches most of the asked-for tags wins.
  'gpu-or-eu': 'gpu-eu',
  // `gpu` matches, and `gpu-eu` carries a tag not asked for: the closer fit wins.
  'gpu-or-unknown': 'gpu',
};

describe('fleet routing: worker selectors send each task to a worker of the right group', () => {
  const { lanner, cluster, controllerEndpoint } = scenario();
  const fleet = new Fleet(cluster, lanner);
  const workerIds = new Map<QueueId, string>();
  let defaultWorkerIds: string[] = [];

  beforeAll(async () => {
    for (const [queueId, tags] of Object.entries(QUEUES)) await lanner.putWorkerQueue(queueId, tags);
    const tokens = new Map<QueueId, string>();
    for (const queueId of Object.keys(QUEUES) as QueueId[]) {
      await lanner.putWorkerGroup(GROUP_OF[queueId], [{ workerQueueId: queueId }]);
      tokens.set(queueId, (await lanner.createRegistrationToken(GROUP_OF[queueId], `${WORKER_OF[queueId]}-token`)).token);
    }
    await Promise.all(
      (Object.keys(QUEUES) as QueueId[]).map((queueId) =>
        fleet.startWorker(WORKER_OF[queueId], {
          registrationToken: tokens.get(queueId),
          slots: 2,
          controllers: controllerEndpoint,
        }),
      ),
    );
    for (const queueId of Object.keys(QUEUES) as QueueId[])
      workerIds.set(queueId, await fleet.workerIdOf(GROUP_OF[queueId], WORKER_OF[queueId]));
    defaultWorkerIds = (await lanner.groupWorkers('default')).map((worker) => worker.id);
    await lanner.createFlow(FLOW);
  }, 240_000);

  afterAll(() => fleet.stopAll(), 60_000);

  /** The queue and worker that ran `taskId`, as the task run's attempt shows them. */
  function ranOn(
    execution: Execution,
    taskId: string,
  ): { queue: string | null | undefined; worker: string | null | undefined; state: string } {
    const run = onlyTaskRun(execution, taskId);
    const attempt = lastAttempt(run);
    return { queue: attempt?.workerQueueId, worker: attempt?.workerId, state: stateOf(run) };
  }

  it('runs tagged tasks (ALL and ANY) on the group of the queue that matches, untagged ones on the default group', async () => {
    expect(new Set(workerIds.values()).size).toBe(3);
    const { id } = await lanner.execute(NAMESPACE, 'routed', { region: 'eu' });
    const ended = await lanner.waitUntilEnded(id, 60_000);
    expect(stateOf(ended)).toBe('SUCCESS');

    for (const [taskId, queueId] of Object.entries(EXPECTED)) {
      expect({ taskId, ...ranOn(ended, taskId) }).toEqual({
        taskId,
        queue: queueId,
        worker: workerIds.get(queueId),
        state: 'SUCCESS',
      });
    }
    const untagged = ranOn(ended, 'untagged');
    expect(untagged.queue).toBe('default');
    expect(defaultWorkerIds).toContain(untagged.worker);
    expect([...workerIds.values()]).not.toContain(untagged.worker);
  });

  it('renders template tags from the inputs: each execution goes where its own region says', async () => {
    const [toEu, toGpu] = await Promise.all([
      lanner.execute(NAMESPACE, 'routed', { region: 'eu' }),
      lanner.execute(NAMESPACE, 'routed', { region: 'gpu' }),
    ]);
    const [euEnded, gpuEnded] = await Promise.all([
      lanner.waitUntilEnded(toEu.id, 60_000),
      lanner.waitUntilEnded(toGpu.id, 60_000),
    ]);

    expect(ranOn(euEnded, 'by-region')).toEqual({ queue: 'eu', worker: workerIds.get('eu'), state: 'SUCCESS' });
    expect(ranOn(gpuEnded, 'by-region')).toEqual({ queue: 'gpu', worker: workerIds.get('gpu'), state: 'SUCCESS' });
  });

  it('lists each worker in its own group only', async () => {
    for (const queueId of Object.keys(QUEUES) as QueueId[]) {
      const names = (await lanner.groupWorkers(GROUP_OF[queueId])).map((worker) => worker.name);
      expect({ group: GROUP_OF[queueId], names }).toEqual({ group: GROUP_OF[queueId], names: [WORKER_OF[queueId]] });
    }
    const defaultNames = (await lanner.groupWorkers('default')).map((worker) => worker.name);
    for (const name of Object.values(WORKER_OF)) expect(defaultNames).not.toContain(name);
  });
});
