import { randomBytes } from 'node:crypto';
import { Execution, onlyTaskRun, outputsOf, scenario, stateOf } from './harness/scenario';

// A Webhook trigger as an outside system calls it: no bearer token, the key in
// the URL is the secret. The api creates the execution, the executor and a worker
// run it, and its task reads the request body in trigger.body.
const KEY = randomBytes(16).toString('hex');
const FLOW = `
id: hook
namespace: e2e.webhook
tasks:
  - id: echo
    type: io.kestra.plugin.core.debug.Return
    format: "{{ trigger.body.x }} / {{ trigger.parameters.source[0] }}"
triggers:
  - id: incoming
    type: io.kestra.plugin.core.trigger.Webhook
    key: ${KEY}
`;

describe('a Webhook trigger', () => {
  const { lanner } = scenario();

  const call = (key: string, body: unknown) =>
    fetch(lanner.url(`/executions/webhook/e2e.webhook/hook/${key}?source=ci`), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });

  async function executions(): Promise<Execution[]> {
    const answer = await lanner.request<{ results: Execution[] }>('GET', '/executions/search?namespace=e2e.webhook&flowId=hook');
    expect(answer.status).toBe(200);
    return answer.body.results;
  }

  beforeAll(() => lanner.createFlow(FLOW));

  it('with the right key starts an execution that reads the request body', async () => {
    const response = await call(KEY, { x: 'hello from outside' });
    expect(response.status).toBe(200);
    const created = (await response.json()) as Execution;
    const ended = await lanner.waitUntilEnded(created.id);
    expect(stateOf(ended)).toBe('SUCCESS');
    expect(outputsOf(onlyTaskRun(ended, 'echo'))['value']).toBe('hello from outside / ci');
  });

  it('with a wrong key answers 404 and starts nothing', async () => {
    const before = (await executions()).length;
    const response = await call(`${KEY.slice(0, -1)}x`, { x: 'intruder' });
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain(KEY);
    expect(await executions()).toHaveLength(before);
  });
});
