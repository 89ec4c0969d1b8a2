import { startApiForSpec, type ApiSpecFixture } from '../testing/api-spec-fixture';

const FLOW_YAML = `id: nightly
namespace: company.triggers
tasks:
  - { id: say, type: io.kestra.plugin.core.log.Log, message: hi }
triggers:
  - { id: at-two, type: io.kestra.plugin.core.trigger.Schedule, cron: "0 2 * * *" }
  - { id: hook, type: io.kestra.plugin.core.trigger.Webhook, key: a-long-secret-key }
`;

let api: ApiSpecFixture;

interface TriggerRow {
  readonly triggerId: string;
  readonly kind: string;
  readonly nextEvaluationDate: string | null;
  readonly lockHolder: string | null;
  readonly disabled: boolean;
}
interface Answer {
  readonly results: TriggerRow[];
  readonly total: number;
  readonly detail?: string;
  readonly title?: string;
}

async function call(method: string, path: string, body?: unknown, contentType = 'application/json') {
  const headers: Record<string, string> = { authorization: `Bearer ${api.adminToken}` };
  if (body !== undefined) headers['content-type'] = contentType;
  const response = await fetch(`${api.baseUrl}/api/v1/main${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: (text === '' ? {} : JSON.parse(text)) as Answer };
}

beforeAll(async () => {
  api = await startApiForSpec();
  expect((await call('POST', '/flows', FLOW_YAML, 'application/x-yaml')).status).toBe(201);
});

afterAll(() => api?.close());

describe('the trigger API', () => {
  it('lists the triggers of a flow with their state', async () => {
    const answer = await call('GET', '/triggers/search?namespace=company.triggers');
    expect(answer.status).toBe(200);
    expect(answer.json.total).toBe(2);
    expect(
      answer.json.results.map((row) => [row.triggerId, row.kind, row.nextEvaluationDate, row.lockHolder, row.disabled]),
    ).toEqual([
      ['at-two', 'Schedule', null, null, false],
      ['hook', 'Webhook', null, null, false],
    ]);
  });

  it('a scheduler lease shows as the lock holder, and unlock drops it', async () => {
    const [claimed] = await api.repositories.triggers.claimDue('scheduler-spec', new Date(), 60_000, 10);
    expect(claimed.triggerId).toBe('at-two');
    const listed = await call('GET', '/triggers/search?namespace=company.triggers&flowId=nightly');
    expect(listed.json.results[0]).toMatchObject({ triggerId: 'at-two', lockHolder: 'scheduler-spec' });
    const unlocked = await call('POST', '/triggers/company.triggers/nightly/at-two/unlock');
    expect(unlocked.status).toBe(200);
    expect(unlocked.json).toMatchObject({ triggerId: 'at-two', lockHolder: null, lockExpiresAt: null });
  });

  it('disables and enables a trigger; a disabled schedule is never claimed', async () => {
    const disabled = await call('PUT', '/triggers/company.triggers/nightly/at-two', { disabled: true });
    expect(disabled.status).toBe(200);
    expect(disabled.json).toMatchObject({ triggerId: 'at-two', disabled: true });
    expect(await api.repositories.triggers.claimDue('scheduler-spec', new Date(), 60_000, 10)).toEqual([]);
    const enabled = await call('PUT', '/triggers/company.triggers/nightly/at-two', { disabled: false });
    expect(enabled.json).toMatchObject({ disabled: false });
    expect((await api.repositories.triggers.claimDue('scheduler-spec', new Date(), 60_000, 10)).length).toBe(1);
  });

  it('names what is wrong: an unknown trigger is 404, a bad body 400', async () => {
    const missing = await call('PUT', '/triggers/company.triggers/nightly/nope', { disabled: true });
    expect(missing.status).toBe(404);
    expect(missing.json.detail ?? missing.json.title).toContain('company.triggers.nightly.nope');
    const bad = await call('PUT', '/triggers/company.triggers/nightly/at-two', { disabled: 'yes' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json)).toContain('disabled');
  });
});
