import { randomBytes } from 'node:crypto';
import { apiRoleRoutes, auditedRoutes, type ApiRoute } from '../testing/api-routes';
import { eventually, startApiForSpec, type ApiSpecFixture } from '../testing/api-spec-fixture';
import { IndexerProcess } from '../testing/indexer-process';
import type { AuditDeclaration } from './audit.decorator';

// The audit path end to end on the real Kafka and PostgreSQL: the api role
// publishes an entry per write to lanner.audit, an indexer process (as users
// run it) stores it, the audit-log routes read it. The route table comes from
// the routes Nest registers, so a new write route is covered without listing it.

const run = randomBytes(3).toString('hex');
const WEBHOOK_KEY = `webhook-key-${randomBytes(8).toString('hex')}`;
const USER_PASSWORD = `a-long-user-password-${randomBytes(8).toString('hex')}`;
const USER_AGENT = `audit-spec/${run}`;

let api: ApiSpecFixture;
let indexer: IndexerProcess;
let execution: string;
let viewer: { id: string; token: string };
let otherAdmin: string;
/** Every token value the spec saw: none may appear in the audit log. */
const secrets: string[] = [WEBHOOK_KEY, USER_PASSWORD];

interface Answer {
  readonly status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are inspected field by field in the assertions
  readonly json: any;
}

async function call(
  method: string,
  path: string,
  options: { token?: string | null; body?: string; contentType?: string; correlationId?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { 'user-agent': USER_AGENT };
  const token = options.token === undefined ? api.adminToken : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.contentType !== undefined) headers['content-type'] = options.contentType;
  if (options.correlationId !== undefined) headers['x-correlation-id'] = options.correlationId;
  const response = await fetch(`${api.baseUrl}${path}`, { method, headers, body: options.body });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json };
}

const json = (body: unknown) => ({ body: JSON.stringify(body), contentType: 'application/json' });
const yaml = (body: string) => ({ body, contentType: 'application/x-yaml' });
const flowYaml = (id: string, extra = '') =>
  `id: ${id}\nnamespace: company.team\ntasks:\n  - id: say\n    type: io.kestra.plugin.core.log.Log\n    message: hi\n${extra}`;

/** The route with its parameters filled with things of tenant `main`, and a body it reads. */
function requestFor(route: ApiRoute): { path: string; body?: string; contentType?: string } {
  const isFlow = route.path.includes('/flows');
  const path = route.path.replace(/:(\w+)/g, (_, name: string) => {
    if (name === 'tenant') return 'main';
    if (name === 'namespace') return 'company.team';
    if (name === 'flowId') return route.path.includes('/webhook/') ? 'hooked' : 'hello';
    if (name === 'key') return WEBHOOK_KEY;
    if (name === 'id' && route.path.includes('/executions/')) return execution;
    if (name === 'id' && route.path.includes('/tenants/')) return `audit-${run}`;
    // A deleted flow is one made for it; a saved one is `hello`.
    if (name === 'id' && isFlow) return route.method === 'DELETE' ? 'doomed' : 'hello';
    if (name === 'id' && route.path.includes('/api-tokens/')) return viewer.id;
    return 'spec';
  });
  if (route.path.endsWith('/flows')) return { path, ...yaml(flowYaml(`made-${run}`)) };
  if (route.method === 'PUT' && isFlow) return { path, ...yaml(flowYaml('hello')) };
  if (route.path.endsWith('/api-tokens')) return { path, ...json({ name: `minted-${run}`, role: 'viewer' }) };
  if (route.path.endsWith('/instance/tenants')) return { path, ...json({ id: `made-${run}` }) };
  if (route.path.endsWith('/instance/users'))
    return { path, ...json({ username: `user-${run}`, password: USER_PASSWORD, role: 'viewer', tenant: 'main' }) };
  if (route.path.endsWith('/auth/password'))
    return { path, ...json({ currentPassword: USER_PASSWORD, newPassword: `${USER_PASSWORD}-new` }) };
  return route.method === 'GET' || route.method === 'DELETE' ? { path } : { path, ...json({}) };
}

/**
 * What the audit-log routes answer for one correlation id (instance admin: every tenant).
 * The page and its total are read side by side: a probe waits for both to hold the entry.
 */
async function entriesOf(correlationId: string): Promise<Answer> {
  return call('GET', `/api/v1/instance/audit-logs?correlationId=${correlationId}`);
}

beforeAll(async () => {
  api = await startApiForSpec({ users: { signingKey: `audit-spec-signing-key-${randomBytes(16).toString('hex')}` } });
  indexer = await IndexerProcess.start(api);
  expect((await call('POST', '/api/v1/main/flows', yaml(flowYaml('hello')))).status).toBe(201);
  expect((await call('POST', '/api/v1/main/flows', yaml(flowYaml('doomed')))).status).toBe(201);
  const hook = `triggers:\n  - { id: push, type: io.kestra.plugin.core.trigger.Webhook, key: ${WEBHOOK_KEY} }\n`;
  expect((await call('POST', '/api/v1/main/flows', yaml(flowYaml('hooked', hook)))).status).toBe(201);
  expect((await call('POST', '/api/v1/instance/tenants', json({ id: `audit-${run}` }))).status).toBe(201);
  execution = (await call('POST', '/api/v1/main/executions/company.team/hello', json({}))).json.id;
  const minted = await call('POST', '/api/v1/main/api-tokens', json({ name: `viewer-${run}`, role: 'viewer' }));
  viewer = { id: minted.json.id, token: minted.json.token };
  // Tokens are bound to tenants that exist: the second tenant is made first.
  expect((await call('POST', '/api/v1/instance/tenants', json({ id: 'other' }))).status).toBe(201);
  const otherMinted = await call('POST', '/api/v1/other/api-tokens', json({ name: `other-admin-${run}`, role: 'admin' }));
  expect(otherMinted.status).toBe(201);
  otherAdmin = otherMinted.json.token;
  secrets.push(api.adminToken, viewer.token, otherAdmin);
}, 180_000);

afterAll(async () => {
  await indexer?.stop();
  await api?.close();
}, 60_000);

describe('the audit log', () => {
  it('holds exactly one entry per request to every write route, with its action, resource, status and outcome', async () => {
    const routes = auditedRoutes(apiRoleRoutes());
    expect(routes.length).toBeGreaterThan(25);
    const sent: { label: string; correlationId: string; status: number; declaration: AuditDeclaration; route: ApiRoute }[] = [];
    for (const [index, route] of routes.entries()) {
      const correlationId = `audit-${run}-${index}`;
      const request = requestFor(route);
      const answer = await call(route.method, request.path, { ...request, correlationId });
      if (typeof answer.json?.token === 'string') secrets.push(answer.json.token);
      sent.push({
        label: `${route.method} ${route.path}`,
        correlationId,
        status: answer.status,
        declaration: route.audit as AuditDeclaration,
        route,
      });
    }

    // Refused or failed requests are recorded as well, but none of them may be a server error.
    expect(sent.filter((request) => request.status >= 500).map((request) => `${request.label}: ${request.status}`)).toEqual([]);
    const found = await eventually(
      'an entry for every request',
      async () => {
        const pages = await Promise.all(sent.map((request) => entriesOf(request.correlationId)));
        return pages.every((page) => page.json.total >= 1 && page.json.results.length >= 1) ? pages : undefined;
      },
      60_000,
    );
    const outcomeOf = (status: number) => (status === 401 || status === 403 ? 'denied' : status < 400 ? 'success' : 'failure');
    expect(
      found.map((page, index) => {
        const entry = page.json.results[0];
        return `${sent[index].label}: ${page.json.total} ${entry.action} ${entry.resourceType} ${entry.tenant} ${entry.status} ${entry.outcome}`;
      }),
    ).toEqual(
      sent.map(
        (request) =>
          `${request.label}: 1 ${request.declaration.action} ${request.declaration.resourceType} ${
            request.route.path.startsWith('/api/v1/:tenant/') ? 'main' : null
          } ${request.status} ${outcomeOf(request.status)}`,
      ),
    );

    const byAction = new Map(found.map((page, index) => [sent[index].declaration.action, page.json.results[0]]));
    // The writes that succeed name their resource: from the path, from the answer (created ids) or from the execution.
    expect(byAction.get('flow.create')).toMatchObject({
      outcome: 'success',
      resourceId: `company.team/made-${run}`,
      namespace: 'company.team',
      actor: { type: 'api-token', id: 'bootstrap-admin', name: 'bootstrap-admin' },
      userAgent: USER_AGENT,
    });
    expect(byAction.get('flow.update')).toMatchObject({ outcome: 'success', resourceId: 'company.team/hello' });
    expect(byAction.get('flow.delete')).toMatchObject({ outcome: 'success', resourceId: 'company.team/doomed' });
    expect(byAction.get('execution.create')).toMatchObject({ outcome: 'success', namespace: 'company.team' });
    expect(byAction.get('execution.create').resourceId).toMatch(/\S/);
    expect(byAction.get('execution.kill')).toMatchObject({ resourceId: execution, namespace: 'company.team' });
    expect(byAction.get('api-token.create')).toMatchObject({ outcome: 'success', resourceType: 'api-token' });
    expect(byAction.get('api-token.revoke')).toMatchObject({ outcome: 'success', resourceId: viewer.id });
    expect(byAction.get('tenant.create')).toMatchObject({ outcome: 'success', resourceId: `made-${run}`, tenant: null });
    expect(byAction.get('user.create')).toMatchObject({ outcome: 'success', resourceId: `user-${run}` });
    // A webhook has no token: its caller is anonymous, and its key is recorded nowhere.
    expect(byAction.get('execution.webhook')).toMatchObject({
      outcome: 'success',
      namespace: 'company.team',
      actor: { type: 'anonymous', id: null, name: null },
    });
    for (const page of found) expect(page.json.results[0].clientIp).toMatch(/127\.0\.0\.1/);
  }, 240_000);

  it('records a refused write as denied, naming the verified caller, and never a token, key or password', async () => {
    const correlationId = `audit-${run}-denied`;
    const refused = await call('DELETE', '/api/v1/main/flows/company.team/hello', { token: otherAdmin, correlationId });
    expect(refused.status).toBe(403);
    const page = await eventually('the refusal', async () => {
      const found = await entriesOf(correlationId);
      return found.json.total > 0 && found.json.results.length > 0 ? found : undefined;
    });
    expect(page.json.results).toEqual([
      expect.objectContaining({
        tenant: 'main',
        action: 'flow.delete',
        resourceId: 'company.team/hello',
        outcome: 'denied',
        status: 403,
        actor: expect.objectContaining({ type: 'api-token', name: `other-admin-${run}` }),
      }),
    ]);

    const everything = await call('GET', '/api/v1/instance/audit-logs?size=200');
    expect(everything.json.total).toBeGreaterThan(30);
    const stored = JSON.stringify((await api.repositories.auditLogs.search({ instance: true }, { page: 1, size: 1000 })).results);
    for (const secret of secrets) expect(stored).not.toContain(secret);
  });
});

describe('a user', () => {
  it('is named by its id and username on the entries of its writes, its own password change included', async () => {
    const username = `pat-${run}`;
    const created = await call('POST', '/api/v1/instance/users', json({ username, password: USER_PASSWORD, role: 'developer' }));
    expect(created.status).toBe(201);
    const login = await call('POST', '/api/v1/auth/login', { ...json({ username, password: USER_PASSWORD }), token: null });
    expect(login.status).toBe(200);
    const correlationId = `audit-${run}-password`;
    const changed = await call('POST', '/api/v1/auth/password', {
      ...json({ currentPassword: USER_PASSWORD, newPassword: `${USER_PASSWORD}-changed` }),
      token: login.json.accessToken,
      correlationId,
    });
    expect(changed.status).toBe(204);
    secrets.push(login.json.accessToken, `${USER_PASSWORD}-changed`);
    const page = await eventually('the password change', async () => {
      const found = await entriesOf(correlationId);
      return found.json.total > 0 && found.json.results.length > 0 ? found : undefined;
    });
    expect(page.json.results).toEqual([
      expect.objectContaining({
        tenant: null,
        action: 'user.change-password',
        resourceType: 'user',
        resourceId: username,
        outcome: 'success',
        status: 204,
        actor: { type: 'user', id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: username },
      }),
    ]);
    const stored = JSON.stringify((await api.repositories.auditLogs.search({ instance: true }, { page: 1, size: 1000 })).results);
    for (const secret of secrets) expect(stored).not.toContain(secret);
  });
});

describe('GET /api/v1/{tenant}/audit-logs', () => {
  it('filters by actor, action, resource, namespace and period, newest first, a page at a time', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    for (const id of ['one', 'two', 'three'])
      expect(
        (await call('PUT', `/api/v1/main/flows/company.paged/${id}`, yaml(flowYaml(id).replace('company.team', 'company.paged'))))
          .status,
      ).toBe(201);
    const all = await eventually('three updates', async () => {
      const found = await call('GET', '/api/v1/main/audit-logs?action=flow.update&namespace=company.paged');
      return found.json.total === 3 && found.json.results.length === 3 ? found : undefined;
    });
    expect(all.json.results.map((entry: { resourceId: string }) => entry.resourceId)).toEqual([
      'company.paged/three',
      'company.paged/two',
      'company.paged/one',
    ]);
    const second = await call('GET', '/api/v1/main/audit-logs?action=flow.update&namespace=company&size=1&page=2');
    expect(second.json.results.map((entry: { resourceId: string }) => entry.resourceId)).toEqual(['company.paged/two']);
    const byResource = await call('GET', '/api/v1/main/audit-logs?resourceType=flow&resourceId=company.paged/one');
    expect(byResource.json.total).toBe(1);
    const byActor = await call('GET', `/api/v1/main/audit-logs?actor=bootstrap-admin&from=${since}&namespace=company.paged`);
    expect(byActor.json.total).toBe(3);
    const before = await call('GET', `/api/v1/main/audit-logs?to=${since}&namespace=company.paged`);
    expect(before.json.total).toBe(0);
    const reversed = await call('GET', `/api/v1/main/audit-logs?from=${new Date().toISOString()}&to=${since}`);
    expect(reversed.status).toBe(400);
    expect(reversed.json.errors).toEqual([{ path: 'from', message: 'must be before `to`' }]);
    const unknown = await call('GET', '/api/v1/main/audit-logs?body=1');
    expect(unknown.status).toBe(400);
  });

  it("answers a tenant's admin its own tenant's entries only, and refuses viewers and the instance log", async () => {
    const mine = await call('GET', '/api/v1/other/audit-logs?size=200', { token: otherAdmin });
    expect(mine.status).toBe(200);
    expect(mine.json.results.every((entry: { tenant: string }) => entry.tenant === 'other')).toBe(true);
    const theirs = await call('GET', '/api/v1/main/audit-logs', { token: otherAdmin });
    expect(theirs.status).toBe(403);
    expect(theirs.json.detail).toContain("'audit-log:read'");
    // The tenant log of main holds no instance entry, even for the instance admin.
    const main = await call('GET', '/api/v1/main/audit-logs?size=200');
    expect(main.json.results.every((entry: { tenant: string }) => entry.tenant === 'main')).toBe(true);
    const instance = await call('GET', '/api/v1/instance/audit-logs?tenant=instance&size=200');
    expect(instance.json.total).toBeGreaterThan(0);
    expect(instance.json.results.every((entry: { tenant: string | null }) => entry.tenant === null)).toBe(true);
    expect((await call('GET', '/api/v1/instance/audit-logs', { token: otherAdmin })).status).toBe(403);
  });
});
