import { requiredEnv } from '@lanner/testing';
import { Kafka, logLevel, type Admin, type Consumer, type Producer } from 'kafkajs';
import { eventually, listIn, onlyTaskRun, outputsOf, scenario, stateOf, taskRunsOf } from './harness/scenario';

// Delivery is at least once everywhere (ARCHITECTURE.md "Message flow"): every consumer
// must ignore a message it gets again. A tap on every topic of the cluster puts each
// message the roles produce back on its topic twice more, with the same key, value and
// message id (as Kafka redelivers after a rebalance or a crash before a commit), while a
// parent flow with a subflow runs (its Sleep lasts long enough for the worker to report
// it started). Once every consumer group has read everything, the
// API shows what a user would notice: one execution of each flow, one attempt of each
// task run, each log line once and each audit entry once.

const NAMESPACE = 'e2e.redelivery';
const CHILD = `
id: child
namespace: ${NAMESPACE}
tasks:
  - id: shout
    type: io.kestra.plugin.core.log.Log
    message: "child line"
  - id: count
    type: io.kestra.plugin.core.debug.Return
    format: "counted"
outputs:
  - { id: rows, type: STRING, value: "{{ outputs.count.value }}" }
`;
const PARENT = `
id: parent
namespace: ${NAMESPACE}
tasks:
  - id: announce
    type: io.kestra.plugin.core.log.Log
    message: "parent line"
  - id: linger
    type: io.kestra.plugin.core.flow.Sleep
    duration: PT0.5S
  - id: call
    type: io.kestra.plugin.core.flow.Subflow
    namespace: ${NAMESPACE}
    flowId: child
    wait: true
  - id: after
    type: io.kestra.plugin.core.debug.Return
    format: "parent got {{ outputs.call.rows }}"
`;

/** Set on the tap's copies, so the tap does not copy its own copies. */
const COPY_HEADER = 'lanner-e2e-redelivered';
/** The message types the run must have produced (and so redelivered); see QUEUE_SCHEMA_VERSIONS. */
const EXPECTED_TYPES = [
  'audit.entry',
  'execution.created',
  'execution.updated',
  'log.batch',
  'subflow.ended',
  'task-run.result',
  'task-run.started',
  'worker.job',
];

interface LogLine {
  readonly message: string;
  readonly taskRunId: string;
}

interface AuditRow {
  readonly action: string;
  readonly resourceId: string | null;
}

/** What one consumer group has still to read of `topics` (partitions it never committed on do not count). */
async function unread(admin: Admin, groupId: string, topics: readonly string[]): Promise<number> {
  let behind = 0;
  for (const { topic, partitions } of await admin.fetchOffsets({ groupId, topics: [...topics] })) {
    const ends = new Map(
      (await admin.fetchTopicOffsets(topic)).map((partition) => [partition.partition, Number(partition.high)]),
    );
    for (const { partition, offset } of partitions) {
      if (Number(offset) < 0) continue;
      behind += Math.max(0, (ends.get(partition) ?? 0) - Number(offset));
    }
  }
  return behind;
}

/** Where the tap's copies end: `topic` -> partition -> the offset after its last copy there. */
type CopyEnds = Map<string, Map<number, number>>;

/**
 * What the live consumer groups of the cluster (those with members, but `except`) have still to
 * read of the tap's copies, per group. Only partitions a group has committed on count (a group
 * reads only its own topics), and only up to the last copy: lag a group had before the run, or
 * a group of a process an earlier spec stopped, is not this spec's business.
 */
async function unreadCopies(admin: Admin, namespace: string, ends: CopyEnds, except: string): Promise<Map<string, number>> {
  const { groups } = await admin.listGroups();
  const candidates = groups.map(({ groupId }) => groupId).filter((id) => id.startsWith(namespace) && id !== except);
  const described = candidates.length === 0 ? [] : (await admin.describeGroups(candidates)).groups;
  const live = described.filter((group) => group.members.length > 0).map((group) => group.groupId);
  const topics = [...ends.keys()];
  const behind = new Map<string, number>();
  for (const groupId of live) {
    for (const { topic, partitions } of await admin.fetchOffsets({ groupId, topics })) {
      for (const { partition, offset } of partitions) {
        const end = ends.get(topic)?.get(partition);
        if (end === undefined || Number(offset) < 0 || Number(offset) >= end) continue;
        const key = `${groupId} on ${topic}[${partition}]`;
        behind.set(key, end - Number(offset));
      }
    }
  }
  return behind;
}

describe('every message redelivered twice changes nothing a user sees', () => {
  const { lanner, kafkaNamespace } = scenario();
  const tapGroup = `${kafkaNamespace}e2e-redelivery-tap`;
  const copied = new Map<string, number>();
  const copyEnds: CopyEnds = new Map();
  let admin: Admin;
  let producer: Producer;
  let tap: Consumer;
  let topics: string[];

  beforeAll(async () => {
    const kafka = new Kafka({
      clientId: 'e2e-redelivery',
      brokers: requiredEnv('KAFKA_BROKERS', 'the redelivery spec').split(','),
      logLevel: logLevel.NOTHING,
    });
    admin = kafka.admin();
    producer = kafka.producer();
    tap = kafka.consumer({ groupId: tapGroup });
    await Promise.all([admin.connect(), producer.connect(), tap.connect()]);
    topics = (await admin.listTopics()).filter((topic) => topic.startsWith(`${kafkaNamespace}lanner.`));
    await tap.subscribe({ topics, fromBeginning: false });
    // A group new to its partitions starts at their end once its first fetch has located it.
    const fetching = new Promise<void>((resolve) => tap.on(tap.events.FETCH, () => resolve()));
    await tap.run({
      eachMessage: async ({ topic, message }) => {
        const headers = message.headers ?? {};
        if (headers[COPY_HEADER] !== undefined) return;
        const type = String(headers['lanner-type'] ?? '?');
        const copy = { key: message.key, value: message.value, headers: { ...headers, [COPY_HEADER]: '1' } };
        const written = await producer.send({ topic, messages: [copy, copy] });
        for (const { partition, baseOffset } of written) {
          const partitions = copyEnds.get(topic) ?? new Map<number, number>();
          partitions.set(partition, Math.max(partitions.get(partition) ?? 0, Number(baseOffset) + 2));
          copyEnds.set(topic, partitions);
        }
        copied.set(type, (copied.get(type) ?? 0) + 2);
      },
    });
    await fetching;
  }, 60_000);

  afterAll(async () => {
    await tap?.disconnect().catch(() => undefined);
    await producer?.disconnect().catch(() => undefined);
    await admin?.disconnect().catch(() => undefined);
  });

  it('runs a parent and its subflow once, each task once, each log line and audit entry once', async () => {
    await lanner.createFlow(CHILD);
    await lanner.createFlow(PARENT);
    const { id } = await lanner.execute(NAMESPACE, 'parent');
    const parent = await lanner.waitUntilEnded(id, 90_000);
    expect(stateOf(parent)).toBe('SUCCESS');

    // The tap has copied all it read, then every live consumer group has read past the copies.
    let tapBehind = Number.POSITIVE_INFINITY;
    let behind = new Map<string, number>();
    await eventually(
      () => tapBehind === 0 && behind.size === 0,
      'every consumer group to read every message and its two copies',
      60_000,
      async () => {
        tapBehind = await unread(admin, tapGroup, topics);
        behind = tapBehind === 0 ? await unreadCopies(admin, kafkaNamespace, copyEnds, tapGroup) : new Map();
      },
    ).catch((error: Error) => {
      const groups = [...behind].map(([where, count]) => `${where}: ${count}`).join('; ');
      throw new Error(`${error.message} (tap behind ${tapBehind}; ${groups || 'no group behind'})`);
    });
    expect([...copied.keys()]).toEqual(expect.arrayContaining(EXPECTED_TYPES));

    // No second execution of either flow.
    for (const flowId of ['parent', 'child']) {
      const found = await lanner.request<{ total: number }>('GET', `/executions/search?namespace=${NAMESPACE}&flowId=${flowId}`);
      expect(found.body.total).toBe(1);
    }
    // No second attempt of any task run, no second downstream task.
    const ended = await lanner.execution(id);
    expect(stateOf(ended)).toBe('SUCCESS');
    const childId = String(outputsOf(onlyTaskRun(ended, 'call'))['executionId']);
    const child = await lanner.execution(childId);
    for (const [execution, taskIds] of [
      [ended, ['announce', 'linger', 'call', 'after']],
      [child, ['shout', 'count']],
    ] as const) {
      expect(stateOf(execution)).toBe('SUCCESS');
      expect(
        taskRunsOf(execution)
          .map((run) => run.taskId)
          .sort(),
      ).toEqual([...taskIds].sort());
      // The Subflow runs in the executor (no attempt); every other task ran once on a worker.
      for (const taskId of taskIds)
        expect([taskId, onlyTaskRun(execution, taskId).attempts ?? []]).toEqual([
          taskId,
          taskId === 'call' ? [] : [expect.anything()],
        ]);
    }
    // No duplicate log line.
    for (const [executionId, line] of [
      [id, 'parent line'],
      [childId, 'child line'],
    ]) {
      const lines = listIn<LogLine>((await lanner.logs(executionId)).body, ['results', 'logs']);
      expect(lines.filter((entry) => entry.message === line)).toHaveLength(1);
    }
    // No duplicate audit row: one entry per API write.
    const audit = await lanner.request<unknown>('GET', `/audit-logs?action=flow.create&namespace=${NAMESPACE}&size=50`);
    const rows = listIn<AuditRow>(audit.body, ['results']);
    expect(rows.map((row) => row.resourceId).sort()).toEqual([`${NAMESPACE}/child`, `${NAMESPACE}/parent`]);
  });
});
