import { startApiForSpec, type ApiSpecFixture } from '../testing/api-spec-fixture';

const FLOW_YAML = `id: on-push
namespace: company.hooks
tasks:
  - { id: say, type: io.kestra.plugin.core.log.Log, message: "{{ trigger.body }}" }
triggers:
  - { id: push, type: io.kestra.plugin.core.trigger.Webhook, key: s3cr3t-webhook-key }
`;

let api: ApiSpecFixture;

interface Answer {
  readonly id?: string;
  readonly status?: number;
  readonly detail?: string;
  readonly title?: string;
}

async function hook(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${api.baseUrl}/api/v1/main/executions/webhook/${path}`, { method, headers, body });
  const text = await response.text();
  return { status: response.status, json: (text === '' ? {} : JSON.parse(text)) as Answer, text };
}

beforeAll(async () => {
  api = await startApiForSpec();
  const created = await fetch(`${api.baseUrl}/api/v1/main/flows`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.adminToken}`, 'content-type': 'application/x-yaml' },
    body: FLOW_YAML,
  });
  expect(created.status).toBe(201);
});

afterAll(() => api?.close());

describe('webhook triggers', () => {
  it('the right key starts an execution with the body, headers and parameters, without a bearer token', async () => {
    const answer = await hook(
      'POST',
      'company.hooks/on-push/s3cr3t-webhook-key?ref=main&ref=dev',
      JSON.stringify({ commit: 'abc' }),
      {
        'content-type': 'application/json',
        'x-event': 'push',
        authorization: 'Basic not-stored',
      },
    );
    expect(answer.status).toBe(200);
    const execution = await api.repositories.executions.get('main', answer.json.id ?? '');
    expect(execution.trigger).toMatchObject({
      id: 'push',
      type: 'io.kestra.plugin.core.trigger.Webhook',
      variables: { body: { commit: 'abc' }, headers: { 'x-event': ['push'] }, parameters: { ref: ['main', 'dev'] } },
    });
    expect(JSON.stringify(execution.trigger)).not.toContain('not-stored');
  });

  it('GET and a text body work too', async () => {
    expect((await hook('GET', 'company.hooks/on-push/s3cr3t-webhook-key')).status).toBe(200);
    const text = await hook('PUT', 'company.hooks/on-push/s3cr3t-webhook-key', 'plain words', { 'content-type': 'text/plain' });
    expect(text.status).toBe(200);
    expect((await api.repositories.executions.get('main', text.json.id ?? '')).trigger).toMatchObject({
      variables: { body: 'plain words' },
    });
  });

  it('a wrong key is 404, answered as an unknown flow is', async () => {
    const wrong = await hook('POST', 'company.hooks/on-push/s3cr3t-webhook-kez', '{}', { 'content-type': 'application/json' });
    const unknown = await hook('POST', 'company.hooks/nope/s3cr3t-webhook-key', '{}', { 'content-type': 'application/json' });
    expect(wrong.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(wrong.json.title).toBe(unknown.json.title);
    expect(wrong.text).not.toContain('s3cr3t');
  });

  it('a body over the limit is 413', async () => {
    const big = await hook('POST', 'company.hooks/on-push/s3cr3t-webhook-key', 'x'.repeat(1024 * 1024 + 1), {
      'content-type': 'text/plain',
    });
    expect(big.status).toBe(413);
  });

  it('a trigger disabled through the API refuses the request', async () => {
    await api.repositories.triggers.setDisabled(
      { tenantId: 'main', namespace: 'company.hooks', flowId: 'on-push', triggerId: 'push' },
      true,
    );
    const refused = await hook('POST', 'company.hooks/on-push/s3cr3t-webhook-key', '{}', { 'content-type': 'application/json' });
    expect(refused.status).toBe(409);
    expect(refused.json.detail ?? refused.json.title).toContain('disabled');
  });
});
