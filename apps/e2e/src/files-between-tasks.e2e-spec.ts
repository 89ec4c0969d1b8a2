import { Execution, Fleet, lastAttempt, onlyTaskRun, outputsOf, scenario, stateOf } from './harness/scenario';

// Internal storage between tasks: a shell task on one worker writes out.csv as an output
// file, the next task, pinned to another worker, gets it through
// `{{ outputs.write.outputFiles['out.csv'] }}` in its inputFiles. The file goes through
// the store the workers share (the dev services' S3-compatible server); the executor
// only ever carries its URI.
const NAMESPACE = 'e2e.files';
const QUEUES = { writer: ['files-writer'], reader: ['files-reader'] } as const;
type QueueId = keyof typeof QUEUES;
const GROUP_OF: Record<QueueId, string> = { writer: 'files-writer-workers', reader: 'files-reader-workers' };
const WORKER_OF: Record<QueueId, string> = { writer: 'files-writer', reader: 'files-reader' };

const FLOW = `
id: pass-a-file
namespace: ${NAMESPACE}
tasks:
  - id: write
    type: io.kestra.plugin.scripts.shell.Commands
    workerSelector: { tags: [files-writer] }
    outputFiles:
      - out.csv
    commands:
      - printf 'id,name\\n1,ada\\n2,grace\\n' > out.csv
  - id: read
    type: io.kestra.plugin.scripts.shell.Commands
    workerSelector: { tags: [files-reader] }
    inputFiles:
      data.csv: "{{ outputs.write.outputFiles['out.csv'] }}"
    commands:
      - echo "::{\\"outputs\\":{\\"lines\\":$(wc -l < data.csv),\\"last\\":\\"$(tail -n 1 data.csv)\\"}}::"
`;

describe('files between tasks: an output file of one worker is an input file on another', () => {
  const { lanner, cluster, controllerEndpoint } = scenario();
  const fleet = new Fleet(cluster, lanner);
  const workerIds = new Map<QueueId, string>();

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
          slots: 1,
          controllers: controllerEndpoint,
        }),
      ),
    );
    for (const queueId of Object.keys(QUEUES) as QueueId[])
      workerIds.set(queueId, await fleet.workerIdOf(GROUP_OF[queueId], WORKER_OF[queueId]));
    await lanner.createFlow(FLOW);
  }, 240_000);

  afterAll(() => fleet.stopAll(), 60_000);

  const workerOf = (execution: Execution, taskId: string) => lastAttempt(onlyTaskRun(execution, taskId))?.workerId;

  it("reads the writer's out.csv on the reader's worker through its kestra:/// URI", async () => {
    const { id } = await lanner.execute(NAMESPACE, 'pass-a-file');
    const ended = await lanner.waitUntilEnded(id, 60_000);

    expect(stateOf(ended)).toBe('SUCCESS');
    const write = onlyTaskRun(ended, 'write');
    expect(outputsOf(write)).toEqual(
      expect.objectContaining({
        outputFiles: { 'out.csv': `kestra:///e2e/files/pass-a-file/executions/${id}/tasks/write/${write.id}/out.csv` },
      }),
    );
    expect(outputsOf(onlyTaskRun(ended, 'read'))).toEqual(expect.objectContaining({ vars: { lines: 3, last: '2,grace' } }));
    expect(workerOf(ended, 'write')).toBe(workerIds.get('writer'));
    expect(workerOf(ended, 'read')).toBe(workerIds.get('reader'));
    expect(workerIds.get('writer')).not.toBe(workerIds.get('reader'));
  });
});
