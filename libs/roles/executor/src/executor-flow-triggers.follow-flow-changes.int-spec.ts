import type { StoredJson } from '@lanner/model';
import { ended, startExecutorHarness, type ExecutorHarness } from './testing/executor-harness';
import { parsedFlow } from './testing/parsed-flow';

// Flow triggers on the real Kafka and PostgreSQL, the executor running all
// along: which triggers listen is kept in memory, and a flow deployed, replaced
// or deleted afterwards is heard through `broadcast.flows-changed` (as the api
// sends it after the write). The memory is kept far longer than the spec runs,
// so only the broadcast can make the executor see a change.

const TENANT = 'main';
const NAMESPACE = 'company.follow';
const UPSTREAM = `id: upstream
namespace: ${NAMESPACE}
tasks:
  - { id: t, type: io.kestra.plugin.core.log.Log, message: up }
`;
const downstream = (listensTo: string): string => `id: downstream
namespace: ${NAMESPACE}
tasks:
  - { id: t, type: io.kestra.plugin.core.log.Log, message: down }
triggers:
  - id: after-upstream
    type: io.kestra.plugin.core.trigger.Flow
    states: [SUCCESS]
    conditions:
      - { type: io.kestra.plugin.core.condition.ExecutionFlow, namespace: ${NAMESPACE}, flowId: ${listensTo} }
`;

let harness: ExecutorHarness;
let upstreamRevision: number;

beforeAll(async () => {
  harness = await startExecutorHarness({ jobQueues: ['default'], executor: { flowTriggerIndexTtlMs: 3_600_000 } });
  await harness.connectWorker({ workerId: 'default-worker', groupId: 'default', queueIds: ['default'] });
  upstreamRevision = await harness.saveFlow(TENANT, UPSTREAM);
}, 120_000);

afterAll(async () => {
  await harness?.close();
}, 60_000);

/** Runs the upstream flow to its end; its Flow triggers are evaluated before its end is stored. */
async function runUpstream(): Promise<void> {
  const id = await harness.submit(TENANT, NAMESPACE, 'upstream', upstreamRevision);
  const done = await harness.eventually(TENANT, id, ended, 'ended');
  expect(done.state).toBe('SUCCESS');
}

/** A new revision of the flow, as the api stores it (its triggers follow the definition). */
async function saveRevision(source: string): Promise<{ revision: number }> {
  const flow = parsedFlow(source);
  return harness.repositories.flows.saveRevision(TENANT, {
    namespace: flow.namespace,
    flowId: flow.id,
    source,
    definition: JSON.parse(JSON.stringify(flow)) as StoredJson,
  });
}

async function downstreamStarts(): Promise<number> {
  const page = await harness.repositories.executions.search(TENANT, {
    namespace: NAMESPACE,
    flowId: 'downstream',
    page: 1,
    size: 50,
  });
  return page.total;
}

describe('the executor follows flow changes for its Flow triggers', () => {
  it('starts a flow deployed after it started, and stops once the flow is replaced or deleted', async () => {
    // Nothing listens yet: the executor learns so (and keeps it) at this end.
    await runUpstream();
    expect(await downstreamStarts()).toBe(0);

    // Deployed while the executor runs: the next end starts it.
    const deployed = await harness.saveFlow(TENANT, downstream('upstream'));
    await harness.announceFlowChange(TENANT, NAMESPACE, 'downstream', deployed);
    await waitFor(async () => {
      await runUpstream();
      return (await downstreamStarts()) > 0;
    });
    const started = await downstreamStarts();
    await runUpstream();
    expect(await downstreamStarts()).toBe(started + 1);

    // Replaced by a revision that listens to another flow: the end starts nothing.
    const replaced = await saveRevision(downstream('elsewhere'));
    await harness.announceFlowChange(TENANT, NAMESPACE, 'downstream', replaced.revision);
    const afterReplace = await settledStarts();
    await runUpstream();
    expect(await downstreamStarts()).toBe(afterReplace);

    // Listening again, then deleted: the end starts nothing.
    const again = await saveRevision(downstream('upstream'));
    await harness.announceFlowChange(TENANT, NAMESPACE, 'downstream', again.revision);
    const beforeDelete = await downstreamStarts();
    await waitFor(async () => {
      await runUpstream();
      return (await downstreamStarts()) > beforeDelete;
    });
    const deleted = await harness.repositories.flows.softDelete(TENANT, NAMESPACE, 'downstream');
    await harness.announceFlowChange(TENANT, NAMESPACE, 'downstream', deleted.revision);
    const afterDelete = await settledStarts();
    await runUpstream();
    await runUpstream();
    expect(await downstreamStarts()).toBe(afterDelete);
  }, 180_000);
});

/**
 * The broadcast reaches the executor a moment after it is sent: runs that end
 * before it may still start the flow. Waits until one run ends without a start,
 * and answers the count then.
 */
async function settledStarts(): Promise<number> {
  let before = await downstreamStarts();
  await waitFor(async () => {
    await runUpstream();
    const now = await downstreamStarts();
    const settled = now === before;
    before = now;
    return settled;
  });
  return before;
}

/** A deadline that passes fails the test; it is not a timing assertion. */
async function waitFor(done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('the executor never saw the flow change');
  }
}
