import { randomUUID } from 'node:crypto';
import { QUEUE_SCHEMA_VERSIONS } from '@lanner/frames';
import { replayTrigger } from '@lanner/state-machine';
import { ended, startExecutorHarness, type ExecutorHarness } from './testing/executor-harness';

// Replays on the real Kafka and PostgreSQL: the executor builds a replay from the
// row the API writes (its `trigger` names the original and the task run) and the
// original's stored state, carries over the task runs before that one without
// sending their jobs again, and runs the flow on from it. A replay it cannot make
// ends FAILED with the reason.

const TENANT = 'main';
const NAMESPACE = 'company.replay';
const FLOW = `id: replayed
namespace: ${NAMESPACE}
tasks:
  - id: first
    type: io.kestra.plugin.core.log.Log
    message: one
  - id: second
    type: io.kestra.plugin.core.log.Log
    message: two
  - id: third
    type: io.kestra.plugin.core.log.Log
    message: three
`;

let harness: ExecutorHarness;
let revision: number;

beforeAll(async () => {
  harness = await startExecutorHarness({ jobQueues: ['default'] });
  await harness.connectWorker({ workerId: 'default-worker', groupId: 'default', queueIds: ['default'] });
  revision = await harness.saveFlow(TENANT, FLOW);
  // `second` fails on its first attempt only.
  harness.scripts.set('replayed', async (job, reply) => {
    await reply.started(job);
    if (job.taskId === 'second' && job.attempt === 1) await reply.result(job, 'FAILED', {}, 'boom');
    else await reply.result(job, 'SUCCESS');
  });
}, 120_000);

afterAll(async () => {
  await harness?.close();
}, 60_000);

/** As the API does: the replay's row in CREATED, then `execution.created`. */
async function replayOf(originalId: string, taskRunId: string): Promise<string> {
  const id = randomUUID();
  await harness.repositories.executions.create(TENANT, {
    id,
    namespace: NAMESPACE,
    flowId: 'replayed',
    flowRevision: revision,
    state: 'CREATED',
    stateHistories: [{ state: 'CREATED', date: new Date() }],
    inputs: {},
    labels: {},
    trigger: { ...replayTrigger(originalId, taskRunId) },
  });
  await harness.publishToExecutor({
    schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.created'],
    messageId: `${id}:created`,
    type: 'execution.created',
    occurredAt: new Date().toISOString(),
    payload: {
      tenantId: TENANT,
      executionId: id,
      namespace: NAMESPACE,
      flowId: 'replayed',
      flowRevision: revision,
      inputs: {},
      labels: {},
    },
  });
  return id;
}

describe('a replay from a task run', () => {
  it('carries over the task runs before it, sends no job for them, and runs on from it to SUCCESS', async () => {
    const originalId = await harness.submit(TENANT, NAMESPACE, 'replayed', revision);
    const original = await harness.eventually(TENANT, originalId, ended, 'the original ended');
    expect(original.state).toBe('FAILED');

    const id = await replayOf(originalId, `${originalId}:second`);
    const replay = await harness.eventually(TENANT, id, ended, 'the replay ended');
    expect(replay.state).toBe('SUCCESS');
    expect(replay.taskRuns.map((run) => [run.id, run.state, run.attempts.length])).toEqual([
      [`${id}:first`, 'SUCCESS', 1],
      [`${id}:second`, 'SUCCESS', 2],
      [`${id}:third`, 'SUCCESS', 1],
    ]);
    const sent = harness.jobs.filter((received) => received.job.executionId === id).map((received) => received.job.taskId);
    expect(sent.sort()).toEqual(['second', 'third']);
    expect((await harness.repositories.executions.get(TENANT, originalId)).state).toBe('FAILED');
  });

  it('ends FAILED with the reason when the replay cannot be made', async () => {
    const originalId = await harness.submit(TENANT, NAMESPACE, 'replayed', revision);
    await harness.eventually(TENANT, originalId, ended, 'the original ended');
    const id = await replayOf(originalId, `${originalId}:nope`);
    const replay = await harness.eventually(TENANT, id, ended, 'the replay ended');
    expect(replay.state).toBe('FAILED');
    expect(replay.error).toBe(`Execution '${originalId}' has no task run '${originalId}:nope'`);
    expect(replay.taskRuns).toEqual([]);
  });
});
