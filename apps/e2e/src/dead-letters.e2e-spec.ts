import {
  encodeQueueMessage,
  executorEventCodec,
  jobMessageId,
  QUEUE_SCHEMA_VERSIONS,
  workerJobCodec,
  type WorkerJobMessage,
} from '@lanner/frames';
import { requiredEnv } from '@lanner/testing';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { hasStarted, onlyTaskRun, reasonOf, scenario, stateOf } from './harness/scenario';

// A poison message (one whose handling fails the same way on every try) used to hold
// its partition forever, retried every 30 s. Here a job whose execution id holds a NUL
// (a value PostgreSQL refuses in every statement that names it) is put on the default
// queue's topic, as a faulty producer could: the controller parks it, the jobs behind
// it run, and an operator finds it, replays it and drops it through the API.

interface DeadLetter {
  readonly id: string;
  readonly consumerGroup: string;
  readonly topic: string;
  readonly key: string;
  readonly reason: string;
  readonly attempts: number;
  readonly tenantId: string | null;
  readonly executionId: string | null;
}

const FLOW = `
id: after-poison
namespace: e2e.dead-letters
tasks:
  - id: answer
    type: io.kestra.plugin.core.debug.Return
    format: "still running"
`;

const LONG_TASK = `
id: long-task
namespace: e2e.dead-letters
tasks:
  - id: wait
    type: io.kestra.plugin.scripts.shell.Commands
    commands: ["sleep 20"]
`;

function poisonJob(taskRunId: string): WorkerJobMessage {
  return {
    schemaVersion: QUEUE_SCHEMA_VERSIONS['worker.job'],
    messageId: jobMessageId(taskRunId, 1),
    type: 'worker.job',
    occurredAt: new Date().toISOString(),
    payload: {
      tenantId: 'main',
      executionId: 'poison\u0000execution',
      taskRunId,
      attempt: 1,
      workerQueueId: 'default',
      namespace: 'e2e.dead-letters',
      flowId: 'nowhere',
      taskId: 'answer',
      taskType: 'io.kestra.plugin.core.debug.Return',
      taskDefinition: { id: 'answer', type: 'io.kestra.plugin.core.debug.Return', format: 'x' },
    },
  };
}

describe('dead letters: a poison job is parked, the partition moves on, and an operator replays or drops it', () => {
  const { lanner, kafkaNamespace } = scenario();
  const topic = `${kafkaNamespace}lanner.worker-jobs.default`;
  let producer: Producer;

  beforeAll(async () => {
    const kafka = new Kafka({
      clientId: 'e2e-dead-letters',
      brokers: requiredEnv('KAFKA_BROKERS', 'the dead-letter spec').split(','),
      logLevel: logLevel.NOTHING,
    });
    producer = kafka.producer();
    await producer.connect();
    await lanner.createFlow(FLOW);
    await lanner.createFlow(LONG_TASK);
  });

  afterAll(async () => {
    await producer?.disconnect();
  });

  async function parkedFor(taskRunId: string, count = 1): Promise<DeadLetter[]> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const answer = await lanner.instanceRequest<{ results: DeadLetter[] }>('GET', '/dead-letters?size=200');
      expect(answer.status).toBe(200);
      const found = answer.body.results.filter((letter) => letter.key === taskRunId);
      if (found.length >= count || Date.now() > deadline) return found;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  }

  it('parks the job with the reason, runs the executions behind it, then replays it (parked again) and drops it', async () => {
    const taskRunId = `poison-${Date.now()}`;
    const encoded = encodeQueueMessage(workerJobCodec, poisonJob(taskRunId));
    await producer.send({ topic, messages: [{ key: taskRunId, value: encoded.value, headers: encoded.headers }] });
    const behind = await Promise.all([1, 2, 3].map(() => lanner.execute('e2e.dead-letters', 'after-poison')));

    const [parked] = await parkedFor(taskRunId);
    expect(parked).toMatchObject({ topic: 'lanner.worker-jobs.default', key: taskRunId, tenantId: 'main', attempts: 1 });
    expect(parked.consumerGroup).toContain('default');
    expect(parked.reason).toMatch(/^the database refused a value: /);
    expect(parked.reason).not.toMatch(/SELECT|INSERT|UPDATE|\bat .*\.ts:/);

    for (const execution of behind) expect(stateOf(await lanner.waitUntilEnded(execution.id, 60_000))).toBe('SUCCESS');

    const replayed = await lanner.instanceRequest<DeadLetter>('POST', `/dead-letters/${parked.id}/replay`);
    expect(replayed.status).toBe(202);
    expect(replayed.body.id).toBe(parked.id);
    // Published again unchanged, it fails the same way and is parked again, at its new position.
    const again = await parkedFor(taskRunId);
    expect(again).toHaveLength(1);
    expect(again[0].id).not.toBe(parked.id);

    const dropped = await lanner.instanceRequest('DELETE', `/dead-letters/${again[0].id}`);
    expect(dropped.status).toBe(204);
    expect(await parkedFor(taskRunId, 0)).toEqual([]);
    expect((await lanner.instanceRequest('GET', `/dead-letters/${again[0].id}`)).status).toBe(404);
  }, 240_000);

  it('an executor event the database refuses is parked and its execution ends FAILED with the reason, not stuck RUNNING', async () => {
    const created = await lanner.execute('e2e.dead-letters', 'long-task');
    const running = await lanner.waitFor(
      created.id,
      (execution) => (execution.taskRunList ?? []).some(hasStarted),
      'the shell task to start',
      60_000,
    );
    const run = onlyTaskRun(running, 'wait');
    // A result for the running task whose outputs hold a NUL, as a faulty relay could publish: storing it fails on every try.
    const result = encodeQueueMessage(executorEventCodec, {
      schemaVersion: QUEUE_SCHEMA_VERSIONS['task-run.result'],
      messageId: jobMessageId(run.id, 1),
      type: 'task-run.result',
      occurredAt: new Date().toISOString(),
      payload: {
        tenantId: 'main',
        executionId: created.id,
        taskRunId: run.id,
        attempt: 1,
        workerQueueId: 'default',
        workerId: 'e2e-forged',
        state: 'SUCCESS',
        outputs: { binary: 'a\u0000b' },
        cacheHit: false,
        endedAt: new Date().toISOString(),
      },
    });
    await producer.send({
      topic: `${kafkaNamespace}lanner.executor`,
      messages: [{ key: created.id, value: result.value, headers: result.headers }],
    });

    const failed = await lanner.waitUntilEnded(created.id, 90_000);
    expect(stateOf(failed)).toBe('FAILED');
    expect(reasonOf(onlyTaskRun(failed, 'wait'))).toContain('parked as a dead letter: the database refused a value');
    const listed = await lanner.instanceRequest<{ results: DeadLetter[] }>('GET', '/dead-letters?topic=lanner.executor&size=200');
    const parked = listed.body.results.filter((letter) => letter.executionId === created.id);
    expect(parked).toHaveLength(1);
    expect(parked[0]).toMatchObject({ executionId: created.id, tenantId: 'main' });
    await lanner.instanceRequest('DELETE', `/dead-letters/${parked[0].id}`);
  }, 240_000);
});
