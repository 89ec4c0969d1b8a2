import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { parseFlow, type Flow, type StoredJson } from '@lanner/model';
import { applyMigrations, openRepositories, type Repositories } from '@lanner/repository';
import { createExecution, type Execution } from '@lanner/state-machine';
import { requiredEnv } from '@lanner/testing';
import { parsedFlow } from '../testing/parsed-flow';
import { FlowTriggers } from './flow-triggers';

// FlowTriggers against the real PostgreSQL: what an ended execution starts, and
// that handling the same end again (a redelivery) starts nothing more.

const TENANT = 'main';
const run = randomBytes(4).toString('hex');
let serverUrl: string;
let databaseName: string;
let repositories: Repositories;
let flowTriggers: FlowTriggers;

const UPSTREAM_A = `
id: extract
namespace: company.up
tasks:
  - { id: t, type: io.kestra.plugin.core.log.Log, message: hi }
outputs:
  - { id: date, type: STRING, value: "x" }
`;
const UPSTREAM_B = UPSTREAM_A.replace('id: extract', 'id: load');

async function deploy(yaml: string): Promise<Flow> {
  const flow = parsedFlow(yaml);
  await repositories.flows.create(TENANT, {
    namespace: flow.namespace,
    flowId: flow.id,
    source: yaml,
    definition: JSON.parse(JSON.stringify(flow)) as StoredJson,
  });
  return flow;
}

let ids = 0;
function ended(flow: Flow, state: Execution['state'], outputs?: Record<string, string>): Execution {
  const created = createExecution(flow, { id: `up-${run}-${++ids}`, tenant: TENANT }, Date.now());
  return { ...created, state, ...(outputs !== undefined ? { outputs } : {}) };
}

async function startedOf(flowId: string): Promise<{ id: string; inputs: unknown; trigger: unknown }[]> {
  const page = await repositories.executions.search(TENANT, { namespace: 'company.down', flowId, page: 1, size: 50 });
  return page.results.map((row) => ({ id: row.id, inputs: row.inputs, trigger: row.trigger }));
}

beforeAll(async () => {
  serverUrl = requiredEnv('DATABASE_URL');
  databaseName = `lanner_flow_triggers_${run}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${databaseName}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  await applyMigrations(url.toString());
  repositories = await openRepositories(url.toString(), { poolSize: 4 });
  flowTriggers = new FlowTriggers(
    repositories,
    async (tenantId, namespace, flowId, revision) => {
      const record = await repositories.flows.getRevision(tenantId, namespace, flowId, revision);
      const parsed = parseFlow(record.source);
      return parsed.ok ? { ...parsed.flow, revision } : undefined;
    },
    Date.now,
  );
});

afterAll(async () => {
  await repositories?.close();
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
});

describe('FlowTriggers', () => {
  let extract: Flow;
  let load: Flow;
  beforeAll(async () => {
    extract = await deploy(UPSTREAM_A);
    load = await deploy(UPSTREAM_B);
    await deploy(`
id: on-success
namespace: company.down
inputs:
  - { id: date, type: STRING }
tasks:
  - { id: t, type: io.kestra.plugin.core.log.Log, message: "{{ inputs.date }}" }
triggers:
  - id: after
    type: io.kestra.plugin.core.trigger.Flow
    states: [SUCCESS]
    inputs: { date: "{{ trigger.outputs.date }}-{{ trigger.flowId }}" }
    conditions:
      - { type: io.kestra.plugin.core.condition.ExecutionFlow, namespace: company.up, flowId: extract }
`);
    await deploy(`
id: both
namespace: company.down
tasks:
  - { id: t, type: io.kestra.plugin.core.log.Log, message: both }
triggers:
  - id: after-both
    type: io.kestra.plugin.core.trigger.Flow
    preconditions:
      id: both
      flows:
        - { namespace: company.up, flowId: extract, states: [SUCCESS] }
        - { namespace: company.up, flowId: load, states: [SUCCESS] }
`);
    await deploy(`
id: wrong-inputs
namespace: company.down
inputs:
  - { id: count, type: INT }
tasks:
  - { id: t, type: io.kestra.plugin.core.log.Log, message: never }
triggers:
  - id: after
    type: io.kestra.plugin.core.trigger.Flow
    inputs: { count: "not a number" }
    conditions:
      - { type: io.kestra.plugin.core.condition.ExecutionFlow, namespace: company.up, flowId: extract }
`);
  });

  it('an ended execution handled twice starts one execution, and the second time announces that one again', async () => {
    const success = ended(extract, 'SUCCESS', { date: '2026-03-01' });
    const first = await flowTriggers.onEnd(TENANT, extract, success);
    const onSuccess = first.filter((execution) => execution.flowId === 'on-success');
    expect(onSuccess).toHaveLength(1);
    expect(onSuccess[0]).toMatchObject({ inputs: { date: '2026-03-01-extract' }, labels: { 'system.triggerId': 'after' } });

    const again = await flowTriggers.onEnd(TENANT, extract, success);
    expect(again.filter((execution) => execution.flowId === 'on-success').map((execution) => execution.id)).toEqual([
      onSuccess[0].id,
    ]);
    const stored = await startedOf('on-success');
    expect(stored).toHaveLength(1);
    expect(stored[0].trigger).toMatchObject({
      id: 'after',
      type: 'io.kestra.plugin.core.trigger.Flow',
      variables: {
        executionId: success.id,
        namespace: 'company.up',
        flowId: 'extract',
        state: 'SUCCESS',
        outputs: { date: '2026-03-01' },
      },
    });
  });

  it('states and conditions: a failed execution or another flow starts nothing', async () => {
    const before = (await startedOf('on-success')).length;
    await flowTriggers.onEnd(TENANT, extract, ended(extract, 'FAILED'));
    await flowTriggers.onEnd(TENANT, load, ended(load, 'SUCCESS', { date: 'd' }));
    expect(await startedOf('on-success')).toHaveLength(before);
  });

  it('preconditions on two flows: one start once both succeeded, even when they end at the same time', async () => {
    const before = (await startedOf('both')).length;
    await flowTriggers.onEnd(TENANT, extract, ended(extract, 'SUCCESS', { date: 'd' }));
    expect(await startedOf('both')).toHaveLength(before);
    await flowTriggers.onEnd(TENANT, load, ended(load, 'SUCCESS', { date: 'd' }));
    expect(await startedOf('both')).toHaveLength(before + 1);
    // Both at once, on two executors: counted one after the other, so they start exactly one.
    await Promise.all([
      flowTriggers.onEnd(TENANT, extract, ended(extract, 'SUCCESS', { date: 'd' })),
      flowTriggers.onEnd(TENANT, load, ended(load, 'SUCCESS', { date: 'd' })),
    ]);
    expect(await startedOf('both')).toHaveLength(before + 2);
  });

  it('inputs that do not match the flow start nothing', async () => {
    await flowTriggers.onEnd(TENANT, extract, ended(extract, 'SUCCESS', { date: 'd' }));
    expect(await startedOf('wrong-inputs')).toHaveLength(0);
  });
});
