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
  readonly backfill?: Record<string, unknown> | null;
  readonly errors?: { path: string; message: string }[];
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

describe('backfills through the trigger API', () => {
  const route = '/triggers/company.triggers/nightly/at-two/backfill';

  it('starts a backfill of a past range; the listing shows its progress; pause, resume and delete change it', async () => {
    const created = await call('POST', route, {
      start: '2026-01-01T00:00:00Z',
      end: '2026-01-05T00:00:00+01:00',
      labels: [{ key: 'reason', value: 'outage' }],
    });
    expect(created.status).toBe(202);
    expect(created.json.backfill).toMatchObject({
      start: '2026-01-01T00:00:00.000Z',
      end: '2026-01-04T23:00:00.000Z',
      currentDate: '2026-01-01T00:00:00.000Z',
      paused: false,
      finished: false,
      done: 0,
      labels: { reason: 'outage' },
    });
    const again = await call('POST', route, { start: '2026-01-01T00:00:00Z' });
    expect(again.status).toBe(409);

    const paused = await call('PUT', `${route}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.json.backfill).toMatchObject({ paused: true, finished: false });
    const listed = await call('GET', '/triggers/search?namespace=company.triggers&flowId=nightly');
    expect((listed.json.results[0] as unknown as Answer).backfill).toMatchObject({ paused: true, done: 0 });
    expect((await call('PUT', `${route}/pause`)).status).toBe(404);

    const resumed = await call('PUT', `${route}/resume`);
    expect(resumed.json.backfill).toMatchObject({ paused: false, currentDate: '2026-01-01T00:00:00.000Z' });

    const deleted = await call('DELETE', route);
    expect(deleted.status).toBe(200);
    expect(deleted.json.backfill).toBeNull();
    expect((await call('DELETE', route)).status).toBe(404);
  });

  it('names what is wrong: a future or inverted range, a reserved label, an unknown input, a trigger that is not a schedule', async () => {
    const future = await call('POST', route, { start: '2020-01-01T00:00:00Z', end: '2999-01-01T00:00:00Z' });
    expect(future.status).toBe(400);
    expect(future.json.errors).toEqual([{ path: 'body.end', message: 'must not be in the future' }]);
    const inverted = await call('POST', route, {
      start: '2021-01-02T00:00:00Z',
      end: '2021-01-01T00:00:00Z',
      labels: { 'system.triggerId': 'forged' },
    });
    expect(inverted.json.errors).toEqual([
      { path: 'body.start', message: 'must not be after end' },
      { path: 'body.labels.system.triggerId', message: "labels starting with 'system.' are reserved" },
    ]);
    const badDate = await call('POST', route, { start: 'yesterday' });
    expect(badDate.status).toBe(400);
    expect(JSON.stringify(badDate.json)).toContain('start');
    const unknownInput = await call('POST', route, { start: '2021-01-01T00:00:00Z', inputs: { region: 'eu' } });
    expect(unknownInput.status).toBe(422);
    expect(JSON.stringify(unknownInput.json.errors)).toContain('body.inputs.region');
    const webhook = await call('POST', '/triggers/company.triggers/nightly/hook/backfill', { start: '2021-01-01T00:00:00Z' });
    expect(webhook.status).toBe(409);
    expect(webhook.json.detail ?? webhook.json.title).toContain('not a Schedule');
    expect(
      (await call('POST', '/triggers/company.triggers/nightly/nope/backfill', { start: '2021-01-01T00:00:00Z' })).status,
    ).toBe(404);
  });
});
