import { cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readClusterState } from './harness/cluster-state';
import { OpenTofu } from './harness/opentofu';
import { workspaceRoot } from './harness/role-process';
import { scenario } from './harness/scenario';

// Each step runs the real OpenTofu CLI, which starts the provider as a plugin process.
jest.setTimeout(300_000);

const PROVIDER = `
terraform {
  required_providers {
    lanner = { source = "lanner/lanner" }
  }
}

provider "lanner" {}
`;

interface Topology {
  queueTags: string[];
  percent: number;
  message: string;
  tokenName?: string;
}

/** A queue, a group subscribing to it, a token of the group and a flow; `change` varies the updatable fields. */
function topology({ queueTags, percent, message, tokenName = 'team-workers' }: Topology): string {
  return `${PROVIDER}
resource "lanner_worker_queue" "gpu" {
  id          = "tf-gpu"
  tags        = ${JSON.stringify(queueTags)}
  description = "GPU boxes"
}

resource "lanner_worker_group" "team" {
  id   = "tf-team"
  name = "Team"
  subscriptions = [
    { worker_queue_id = lanner_worker_queue.gpu.id, reserved_percent = ${percent}, mode = "ELASTIC" },
  ]
}

resource "lanner_registration_token" "team" {
  worker_group_id = lanner_worker_group.team.id
  name            = "${tokenName}"
}

resource "lanner_flow" "hello" {
  namespace = "tf.demo"
  flow_id   = "hello"
  source    = <<-YAML
    id: hello
    namespace: tf.demo
    tasks:
      - id: say
        type: io.kestra.plugin.core.log.Log
        message: ${message}
  YAML
}

data "lanner_worker_queues" "all" {
  depends_on = [lanner_worker_queue.gpu]
}

output "queue_ids" {
  value = [for q in data.lanner_worker_queues.all.queues : q.id]
}

output "token" {
  value     = lanner_registration_token.team.token
  sensitive = true
}
`;
}

interface QueueView {
  tags: string[];
}
interface GroupView {
  subscriptions: { workerQueueId: string; reservedPercent: number | null; mode: string }[];
}
interface FlowView {
  revision: number;
  source: string;
}
interface TokenView {
  id: string;
  name: string;
  revokedAt: string | null;
}

describe('the Terraform provider, driven by OpenTofu against standalone', () => {
  const { lanner } = scenario();
  const { apiUrl, adminToken } = readClusterState();
  let tofu: OpenTofu;

  beforeAll(() => {
    tofu = OpenTofu.prepare({ LANNER_URL: apiUrl, LANNER_TOKEN: adminToken });
  });

  afterAll(() => tofu?.remove());

  it('creates, updates in place, detects drift made through the API and destroys', async () => {
    const dir = tofu.workspace('lifecycle', { 'main.tf': topology({ queueTags: ['tf-gpu'], percent: 30, message: 'hi' }) });

    const created = await tofu.apply(dir);
    expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: '' });
    expect(created.stdout).toContain('Apply complete! Resources: 4 added, 0 changed, 0 destroyed.');
    expect((await lanner.instanceRequest<QueueView>('GET', '/worker-queues/tf-gpu')).body.tags).toEqual(['tf-gpu']);
    expect((await lanner.instanceRequest<GroupView>('GET', '/worker-groups/tf-team')).body.subscriptions).toEqual([
      { workerQueueId: 'tf-gpu', reservedPercent: 30, mode: 'ELASTIC' },
    ]);
    const flow = await lanner.request<FlowView>('GET', '/flows/tf.demo/hello');
    expect(flow.body.revision).toBe(1);
    expect(flow.body.source).toContain('message: hi');
    const [token] = (await lanner.instanceRequest<TokenView[]>('GET', '/worker-groups/tf-team/tokens')).body;
    expect(token).toMatchObject({ name: 'team-workers', revokedAt: null });
    const outputs = JSON.parse((await tofu.run(dir, ['output', '-json'])).stdout) as Record<
      string,
      { value: unknown; sensitive: boolean }
    >;
    expect(outputs['queue_ids'].value).toEqual(expect.arrayContaining(['default', 'tf-gpu']));
    expect(outputs['token']).toMatchObject({ sensitive: true });
    expect(String(outputs['token'].value).length).toBeGreaterThan(20);
    // The token's value is in the state, never in the plan or apply output.
    expect(created.stdout).not.toContain(String(outputs['token'].value));

    expect((await tofu.plan(dir)).code).toBe(0);

    // Update in place: tags, reserved percent and the flow's source change; nothing is replaced.
    tofu.workspace('lifecycle', { 'main.tf': topology({ queueTags: ['tf-gpu', 'tf-cuda'], percent: 50, message: 'changed' }) });
    const planned = await tofu.plan(dir);
    expect(planned.code).toBe(2);
    expect(planned.stdout).toContain('lanner_worker_queue.gpu will be updated in-place');
    expect(planned.stdout).toContain('lanner_worker_group.team will be updated in-place');
    expect(planned.stdout).toContain('lanner_flow.hello will be updated in-place');
    expect(planned.stdout).toContain('Plan: 0 to add, 3 to change, 0 to destroy.');
    const updated = await tofu.apply(dir);
    expect({ code: updated.code, stderr: updated.stderr }).toEqual({ code: 0, stderr: '' });
    expect((await lanner.instanceRequest<QueueView>('GET', '/worker-queues/tf-gpu')).body.tags.sort()).toEqual([
      'tf-cuda',
      'tf-gpu',
    ]);
    expect((await lanner.instanceRequest<GroupView>('GET', '/worker-groups/tf-team')).body.subscriptions).toEqual([
      { workerQueueId: 'tf-gpu', reservedPercent: 50, mode: 'ELASTIC' },
    ]);
    const revised = await lanner.request<FlowView>('GET', '/flows/tf.demo/hello');
    expect(revised.body.revision).toBe(2);
    expect(revised.body.source).toContain('message: changed');
    // The same token: an update never mints another one.
    expect((await lanner.instanceRequest<TokenView[]>('GET', '/worker-groups/tf-team/tokens')).body.map((t) => t.id)).toEqual([
      token.id,
    ]);

    // Drift: changes made through the API show in the next plan, and apply puts them back.
    await lanner.putWorkerQueue('tf-gpu', ['tf-tpu']);
    await lanner.putSubscription('tf-team', 'tf-gpu', { reservedPercent: 10, mode: 'STRICT' });
    await lanner.request('PUT', '/flows/tf.demo/hello', {
      yaml: revised.body.source.replace('message: changed', 'message: edited by hand'),
    });
    expect((await lanner.instanceRequest('DELETE', `/worker-groups/tf-team/tokens/${token.id}`)).status).toBe(204);
    const drifted = await tofu.plan(dir);
    expect(drifted.code).toBe(2);
    // The plan shows each value the API holds now, and the one the configuration puts back.
    expect(drifted.stdout).toMatch(/- +"tf-tpu"/);
    expect(drifted.stdout).toMatch(/- +reserved_percent += 10/);
    expect(drifted.stdout).toContain('lanner_worker_queue.gpu will be updated in-place');
    expect(drifted.stdout).toContain('lanner_worker_group.team will be updated in-place');
    expect(drifted.stdout).toContain('lanner_flow.hello will be updated in-place');
    // A revoked token registers no worker: the plan mints a new one.
    expect(drifted.stdout).toContain('lanner_registration_token.team will be created');
    expect(drifted.stdout).toContain('Plan: 1 to add, 3 to change, 0 to destroy.');
    // A group's token names stay taken once revoked: minting again under the same name is refused
    // with a message saying so; the new token takes a new name (a rotation).
    const sameName = await tofu.apply(dir);
    expect(sameName.code).toBe(1);
    expect(sameName.stderr.replace(/\s+/g, ' ')).toContain(
      'already has a token named "team-workers" (perhaps revoked: names stay taken)',
    );
    tofu.workspace('lifecycle', {
      'main.tf': topology({ queueTags: ['tf-gpu', 'tf-cuda'], percent: 50, message: 'changed', tokenName: 'team-workers-2' }),
    });
    const restored = await tofu.apply(dir);
    expect({ code: restored.code, stderr: restored.stderr }).toEqual({ code: 0, stderr: '' });
    const rotated = (await lanner.instanceRequest<TokenView[]>('GET', '/worker-groups/tf-team/tokens')).body;
    expect(rotated.filter((t) => t.revokedAt === null).map((t) => t.name)).toEqual(['team-workers-2']);
    expect((await lanner.instanceRequest<QueueView>('GET', '/worker-queues/tf-gpu')).body.tags.sort()).toEqual([
      'tf-cuda',
      'tf-gpu',
    ]);
    expect((await lanner.request<FlowView>('GET', '/flows/tf.demo/hello')).body.source).toContain('message: changed');
    expect((await tofu.plan(dir)).code).toBe(0);

    const destroyed = await tofu.destroy(dir);
    expect({ code: destroyed.code, stderr: destroyed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(destroyed.stdout).toContain('Destroy complete! Resources: 4 destroyed.');
    expect((await lanner.instanceRequest('GET', '/worker-queues/tf-gpu')).status).toBe(404);
    expect((await lanner.instanceRequest('GET', '/worker-groups/tf-team')).status).toBe(404);
    expect((await lanner.request('GET', '/flows/tf.demo/hello')).status).toBe(404);
  });

  it('imports what was made through the API, after which the plan is empty', async () => {
    await lanner.putWorkerQueue('tf-imported', ['arm']);
    await lanner.putWorkerGroup('tf-imported-team', []);
    await lanner.putSubscription('tf-imported-team', 'tf-imported', { reservedPercent: 20, mode: 'STRICT' });
    const minted = await lanner.createRegistrationToken('tf-imported-team', 'imported');
    const source =
      'id: imported\nnamespace: tf.import\ntasks:\n  - id: say\n    type: io.kestra.plugin.core.log.Log\n    message: hi\n';
    await lanner.request('PUT', '/flows/tf.import/imported', { yaml: source });

    const dir = tofu.workspace('import', {
      'main.tf': `${PROVIDER}
resource "lanner_worker_queue" "arm" {
  id   = "tf-imported"
  tags = ["arm"]
}

resource "lanner_worker_group" "team" {
  id   = "tf-imported-team"
  name = "tf-imported-team"
}

resource "lanner_worker_group_subscription" "arm" {
  worker_group_id  = lanner_worker_group.team.id
  worker_queue_id  = lanner_worker_queue.arm.id
  reserved_percent = 20
  mode             = "STRICT"
}

resource "lanner_registration_token" "team" {
  worker_group_id = lanner_worker_group.team.id
  name            = "imported"
}

resource "lanner_flow" "imported" {
  namespace = "tf.import"
  flow_id   = "imported"
  source    = ${JSON.stringify(source)}
}
`,
    });
    const imports: [string, string][] = [
      ['lanner_worker_queue.arm', 'tf-imported'],
      ['lanner_worker_group.team', 'tf-imported-team'],
      ['lanner_worker_group_subscription.arm', 'tf-imported-team/tf-imported'],
      ['lanner_registration_token.team', `tf-imported-team/${minted.id}`],
      ['lanner_flow.imported', 'tf.import/imported'],
    ];
    for (const [address, id] of imports) {
      const imported = await tofu.run(dir, ['import', '-input=false', '-no-color', address, id]);
      expect({ address, code: imported.code, stderr: imported.stderr }).toEqual({ address, code: 0, stderr: '' });
      expect(imported.stdout).toContain('Import successful!');
    }
    const plan = await tofu.plan(dir);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);

    // A wrong import id names the expected form.
    const wrong = await tofu.run(dir, ['import', '-input=false', '-no-color', 'lanner_flow.imported', 'no-slash']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('expected <namespace>/<flow_id>, got "no-slash"');

    // The group leaves its subscriptions to the subscription resource: destroying removes everything.
    expect((await tofu.destroy(dir)).code).toBe(0);
    expect((await lanner.instanceRequest('GET', '/worker-groups/tf-imported-team')).status).toBe(404);
    expect((await lanner.instanceRequest('GET', '/worker-queues/tf-imported')).status).toBe(404);
    expect((await lanner.request('GET', '/flows/tf.import/imported')).status).toBe(404);
  });

  it('fails the plan of an invalid flow with its YAML path, and of a source that names another flow', async () => {
    const dir = tofu.workspace('invalid', {
      'main.tf': `${PROVIDER}
resource "lanner_flow" "broken" {
  namespace = "tf.invalid"
  flow_id   = "broken"
  source    = "id: broken\\nnamespace: tf.invalid\\ntasks:\\n  - id: say\\n    type: io.kestra.plugin.core.log.Log\\n    mesage: typo\\n"
}

resource "lanner_flow" "elsewhere" {
  namespace = "tf.invalid"
  flow_id   = "elsewhere"
  source    = "id: other\\nnamespace: tf.invalid\\ntasks:\\n  - id: say\\n    type: io.kestra.plugin.core.log.Log\\n    message: hi\\n"
}
`,
    });
    const plan = await tofu.plan(dir);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain("tasks[0].mesage: unknown property 'mesage'");
    expect(plan.stderr).toContain('(line 6)');
    expect(plan.stderr).toContain('flow_id is "elsewhere" but the source says id: "other"');
    expect((await lanner.request('GET', '/flows/tf.invalid/broken')).status).toBe(404);
  });

  it('applies the example fleet module, then destroys it', async () => {
    const example = join(workspaceRoot, 'deploy', 'terraform', 'examples', 'fleet');
    const dir = tofu.workspace('fleet', {});
    for (const file of readdirSync(example).filter((name) => name.endsWith('.tf'))) cpSync(join(example, file), join(dir, file));

    const applied = await tofu.apply(dir, '-var', 'team=tf-example');
    expect({ code: applied.code, stderr: applied.stderr }).toEqual({ code: 0, stderr: '' });
    const queue = await lanner.instanceRequest<{ tags: string[] }>('GET', '/worker-queues/gpu');
    expect(queue.body.tags).toContain('gpu');
    const group = await lanner.instanceRequest<GroupView & { name: string }>('GET', '/worker-groups/team-tf-example');
    expect(group.body.subscriptions).toContainEqual(expect.objectContaining({ workerQueueId: 'gpu', reservedPercent: 40 }));
    const tokens = await lanner.instanceRequest<TokenView[]>('GET', '/worker-groups/team-tf-example/tokens');
    expect(tokens.body).toHaveLength(1);
    const token = await tofu.run(dir, ['output', '-raw', 'registration_token']);
    expect(token.stdout.length).toBeGreaterThan(20);

    expect((await tofu.destroy(dir, '-var', 'team=tf-example')).code).toBe(0);
    expect((await lanner.instanceRequest('GET', '/worker-groups/team-tf-example')).status).toBe(404);
    expect((await lanner.instanceRequest('GET', '/worker-queues/gpu')).status).toBe(404);
  });
});
