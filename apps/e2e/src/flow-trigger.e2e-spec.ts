import { Execution, onlyTaskRun, outputsOf, scenario, stateOf } from './harness/scenario';

// A Flow trigger across the role processes: the upstream execution ends in the
// executor, which evaluates the listening trigger and starts the downstream flow
// with the upstream outputs; the downstream's task reads them on a worker.
const UPSTREAM = `
id: extract
namespace: e2e.flowtrigger
inputs:
  - { id: day, type: STRING, defaults: "2026-01-01" }
  - { id: fail, type: BOOLEAN, defaults: false }
tasks:
  - id: date
    type: io.kestra.plugin.core.debug.Return
    format: "{{ inputs.day }}"
  - id: maybe-fail
    type: io.kestra.plugin.core.execution.Fail
    condition: "{{ inputs.fail }}"
    errorMessage: asked to fail
outputs:
  - { id: date, type: STRING, value: "{{ outputs.date.value }}" }
`;

const DOWNSTREAM = `
id: transform
namespace: e2e.flowtrigger
inputs:
  - { id: date, type: STRING }
tasks:
  - id: report
    type: io.kestra.plugin.core.debug.Return
    format: "{{ inputs.date }} | {{ trigger.outputs.date }} | {{ trigger.executionId }} | {{ trigger.namespace }}.{{ trigger.flowId }} | {{ trigger.state }}"
triggers:
  - id: after-extract
    type: io.kestra.plugin.core.trigger.Flow
    states: [SUCCESS]
    inputs:
      date: "{{ trigger.outputs.date ?? 'none' }}"
    preconditions:
      id: extract-ended
      flows:
        - { namespace: e2e.flowtrigger, flowId: extract }
`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a Flow trigger', () => {
  const { lanner } = scenario();

  async function downstream(): Promise<Execution[]> {
    const answer = await lanner.request<{ results: Execution[] }>(
      'GET',
      '/executions/search?namespace=e2e.flowtrigger&flowId=transform&size=50',
    );
    expect(answer.status).toBe(200);
    return answer.body.results;
  }

  async function downstreamCount(count: number): Promise<Execution[]> {
    const deadline = Date.now() + 30_000;
    let found = await downstream();
    while (found.length < count && Date.now() < deadline) {
      await sleep(300);
      found = await downstream();
    }
    expect(found).toHaveLength(count);
    return found;
  }

  beforeAll(async () => {
    await lanner.createFlow(DOWNSTREAM);
    await lanner.createFlow(UPSTREAM);
  });

  it('starts its flow once when the upstream flow succeeds, with the upstream outputs in trigger.outputs', async () => {
    const upstream = await lanner.execute('e2e.flowtrigger', 'extract', { day: '2026-03-01' });
    expect(stateOf(await lanner.waitUntilEnded(upstream.id))).toBe('SUCCESS');

    const [started] = await downstreamCount(1);
    const ended = await lanner.waitUntilEnded(started.id);
    expect(stateOf(ended)).toBe('SUCCESS');
    expect(ended.labels).toMatchObject({ 'system.triggerId': 'after-extract' });
    expect(outputsOf(onlyTaskRun(ended, 'report'))['value']).toBe(
      `2026-03-01 | 2026-03-01 | ${upstream.id} | e2e.flowtrigger.extract | SUCCESS`,
    );
  });

  it('does not start it when the upstream execution fails and its states say SUCCESS', async () => {
    const before = (await downstream()).length;
    const failed = await lanner.execute('e2e.flowtrigger', 'extract', { day: '2026-03-02', fail: true });
    expect(stateOf(await lanner.waitUntilEnded(failed.id))).toBe('FAILED');
    // A success after the failure: its downstream execution shows up, the failure's never does.
    const succeeded = await lanner.execute('e2e.flowtrigger', 'extract', { day: '2026-03-03' });
    expect(stateOf(await lanner.waitUntilEnded(succeeded.id))).toBe('SUCCESS');
    await downstreamCount(before + 1);
    await sleep(2000);
    const all = await downstream();
    expect(all).toHaveLength(before + 1);
    const reports = await Promise.all(
      all.map(async (execution) => String(outputsOf(onlyTaskRun(await lanner.waitUntilEnded(execution.id), 'report'))['value'])),
    );
    expect(reports.some((report) => report.includes(failed.id))).toBe(false);
    expect(reports.filter((report) => report.startsWith('2026-03-03 | 2026-03-03 | ' + succeeded.id))).toHaveLength(1);
  });

  it('stops starting its flow once that flow is deleted, and starts it again once it is deployed again', async () => {
    async function runUpstream(): Promise<void> {
      const upstream = await lanner.execute('e2e.flowtrigger', 'extract', { day: '2026-03-04' });
      expect(stateOf(await lanner.waitUntilEnded(upstream.id))).toBe('SUCCESS');
    }
    expect((await lanner.request('DELETE', '/flows/e2e.flowtrigger/transform')).status).toBe(204);
    // The executors hear of the deletion a moment after the api answered: an end before that may still start it.
    let before = (await downstream()).length;
    const deadline = Date.now() + 30_000;
    for (;;) {
      await runUpstream();
      await sleep(1000);
      const now = (await downstream()).length;
      if (now === before) break;
      before = now;
      if (Date.now() > deadline) throw new Error('the deleted flow was still started 30 s after its deletion');
    }
    await runUpstream();
    await sleep(2000);
    expect(await downstream()).toHaveLength(before);

    await lanner.createFlow(DOWNSTREAM);
    const redeployed = Date.now() + 30_000;
    while ((await downstream()).length === before && Date.now() < redeployed) {
      await runUpstream();
      await sleep(500);
    }
    expect((await downstream()).length).toBeGreaterThan(before);
  });
});
