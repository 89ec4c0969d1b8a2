import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller, Get, Module } from '@nestjs/common';
import { holderOf, permissionName, type Permission } from '@lanner/access';
import { hashToken } from '@lanner/auth';
import { apiRoleRoutes, type ApiRoute } from '../testing/api-routes';
import { startApiForSpec, type ApiSpecFixture } from '../testing/api-spec-fixture';
import { SERVED_TENANT_TTL_MS } from './served-tenants';

// Access control through the real api role on the real PostgreSQL and Kafka:
// API tokens minted through the API, every route's permission, namespace-bound
// tokens and tenant isolation. The permission and isolation tables are derived
// from the routes Nest registers, so a new route is covered without listing it.

/** A route that forgot its declaration, served by the same app: the guard must refuse it. */
@Controller('api/v1/:tenant/undeclared')
class UndeclaredController {
  @Get()
  list() {
    return ['should never be seen'];
  }
}
@Module({ controllers: [UndeclaredController] })
class UndeclaredModule {}

const flowYaml = (namespace: string, id = 'hello') =>
  `id: ${id}\nnamespace: ${namespace}\ntasks:\n  - id: say\n    type: io.kestra.plugin.core.log.Log\n    message: hi\n`;

let api: ApiSpecFixture;
let inTeam: string; // an execution of company.team.hello
let inOther: string; // an execution of other.ns.hello
let mainTokenId: string; // an API token of tenant main
const tokens: Record<'viewer' | 'developer' | 'bound' | 'admin' | 'otherTenant', string> = {
  viewer: '',
  developer: '',
  bound: '',
  admin: '',
  otherTenant: '',
};

interface Answer {
  readonly status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are inspected field by field in the assertions
  readonly json: any;
}

async function call(
  method: string,
  path: string,
  options: { token?: string | null; body?: string; contentType?: string; stream?: boolean } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? api.adminToken : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.contentType !== undefined) headers['content-type'] = options.contentType;
  const abort = new AbortController();
  const response = await fetch(`${api.baseUrl}${path}`, { method, headers, body: options.body, signal: abort.signal });
  // A server-sent event stream that answered 200 runs until its execution ends: its status is the answer.
  if (response.ok && (response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    abort.abort();
    return { status: response.status, json: undefined };
  }
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

async function mint(tenant: string, body: unknown, token?: string): Promise<Answer> {
  return call('POST', `/api/v1/${tenant}/api-tokens`, { ...json(body), token });
}

/** The route with its parameters filled with things that exist in tenant `main`, and a body it reads. */
function requestFor(route: ApiRoute, tenant = 'main'): { path: string; body?: string; contentType?: string } {
  const executionId = /\/(executions|logs)\//.test(route.path) ? inTeam : undefined;
  const path = route.path.replace(/:(\w+)/g, (_, name: string) => {
    if (name === 'tenant') return tenant;
    if (name === 'namespace') return 'company.team';
    if (name === 'flowId') return 'hello';
    if (name === 'executionId') return inTeam;
    if (name === 'id') return executionId ?? (route.path.includes('/flows/') ? 'hello' : '00000000-0000-4000-8000-000000000000');
    return 'spec';
  });
  if (/\/flows(\/validate)?$/.test(route.path) || (route.method === 'PUT' && route.path.includes('/flows/')))
    return { path, ...yaml(flowYaml('company.team')) };
  // A file route names a file by its URI: one of this execution that was never written.
  if (route.path.endsWith('/file') || route.path.endsWith('/file/preview'))
    return { path: `${path}?path=${encodeURIComponent(`kestra:///company.team/hello/executions/${inTeam}/absent.txt`)}` };
  // A namespace file route names a file by its path: one that was never written.
  if (route.path.endsWith('/files')) return { path: `${path}?path=absent.txt` };
  return route.method === 'GET' || route.method === 'DELETE' ? { path } : { path, ...json({}) };
}

/** What a permitted read answers: 200, or 404 for a file route (the spec's execution and namespace have no files). */
const readAnswer = (route: ApiRoute): number => (/\/(file(\/preview)?|files)$/.test(route.path) ? 404 : 200);

const apiRoutes = () => apiRoleRoutes().filter((route) => route.access?.permission !== undefined);
const tenantRoutes = () => apiRoutes().filter((route) => route.path.startsWith('/api/v1/:tenant/'));
/** Every route under a tenant, public ones (webhooks) included. */
const everyTenantRoute = () =>
  apiRoleRoutes().filter(
    (route) => route.path.startsWith('/api/v1/:tenant/') && (route.access?.permission !== undefined || route.access?.public),
  );
const permissionOf = (route: ApiRoute): Permission => route.access?.permission as Permission;

beforeAll(async () => {
  // A local storage folder, so that the file routes answer as a server with storage does.
  api = await startApiForSpec({
    extraModules: [UndeclaredModule],
    storage: { kind: 'local', root: mkdtempSync(join(tmpdir(), 'lanner-access-spec-')) },
  });
  for (const namespace of ['company.team', 'other.ns'])
    expect((await call('POST', '/api/v1/main/flows', yaml(flowYaml(namespace)))).status).toBe(201);
  inTeam = (await call('POST', '/api/v1/main/executions/company.team/hello', json({}))).json.id;
  inOther = (await call('POST', '/api/v1/main/executions/other.ns/hello', json({}))).json.id;
  expect((await call('POST', '/api/v1/instance/tenants', json({ id: 'other' }))).status).toBe(201);
  tokens.viewer = (await mint('main', { name: 'viewer', role: 'viewer' })).json.token;
  tokens.developer = (await mint('main', { name: 'developer', role: 'developer' })).json.token;
  tokens.bound = (await mint('main', { name: 'ci-team', role: 'developer', namespace: 'company.team' })).json.token;
  const adminMinted = (await mint('main', { name: 'admin', role: 'admin' })).json;
  tokens.admin = adminMinted.token;
  mainTokenId = adminMinted.id;
  tokens.otherTenant = (await mint('other', { name: 'other-admin', role: 'admin' })).json.token;
  for (const value of Object.values(tokens)) expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
}, 120_000);

afterAll(async () => {
  await api?.close();
}, 60_000);

describe('API tokens', () => {
  it('show their value once, keep only its hash, and list role, namespace and last use', async () => {
    const minted = await mint('main', { name: 'nightly', role: 'developer', namespace: 'company.team' });
    expect(minted.status).toBe(201);
    expect(minted.json).toMatchObject({ name: 'nightly', role: 'developer', namespace: 'company.team', lastUsedAt: null });
    const stored = await api.repositories.apiTokens.findUsableByHash(hashToken(minted.json.token), new Date());
    expect(stored?.token.id).toBe(minted.json.id);

    expect((await call('GET', '/api/v1/main/flows/search', { token: minted.json.token })).status).toBe(200);
    const listed = await call('GET', '/api/v1/main/api-tokens');
    expect(listed.status).toBe(200);
    const entry = listed.json.find((token: { id: string }) => token.id === minted.json.id);
    expect(entry).toMatchObject({ name: 'nightly', role: 'developer', namespace: 'company.team', revokedAt: null });
    expect(entry.lastUsedAt).not.toBeNull();
    expect(JSON.stringify(listed.json)).not.toContain(minted.json.token);
    expect(listed.json.every((token: object) => !('token' in token) && !('tokenHash' in token))).toBe(true);
  });

  it('are refused from the request after their revocation', async () => {
    const minted = await mint('main', { name: 'short-lived', role: 'viewer' });
    expect((await call('GET', '/api/v1/main/flows/search', { token: minted.json.token })).status).toBe(200);
    expect((await call('DELETE', `/api/v1/main/api-tokens/${minted.json.id}`, { token: tokens.admin })).status).toBe(204);
    const refused = await call('GET', '/api/v1/main/flows/search', { token: minted.json.token });
    expect(refused.status).toBe(401);
    expect(refused.json.detail).toBe('The API token is unknown, revoked or expired');
    expect((await call('DELETE', `/api/v1/main/api-tokens/${minted.json.id}`)).status).toBe(204);
    expect((await call('DELETE', '/api/v1/main/api-tokens/not-a-token-id')).status).toBe(404);
    // Another tenant's token is not this tenant's to revoke, even for an instance admin asking through this tenant.
    const elsewhere = await mint('other', { name: 'elsewhere', role: 'viewer' });
    expect((await call('DELETE', `/api/v1/main/api-tokens/${elsewhere.json.id}`)).status).toBe(404);
  });

  it('are refused once expired, and cannot be made already expired', async () => {
    const past = await mint('main', { name: 'yesterday', role: 'viewer', expiresAt: '2001-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.json.errors).toEqual([{ path: 'expiresAt', message: 'must be in the future' }]);

    const value = 'an-expired-token-value-for-the-access-spec';
    await api.repositories.apiTokens.create({
      tenantId: 'main',
      name: 'expired',
      tokenHash: hashToken(value),
      role: 'ADMIN',
      namespace: null,
      expiresAt: new Date(Date.now() - 1000),
    });
    expect((await call('GET', '/api/v1/main/flows/search', { token: value })).status).toBe(401);
  });

  it('are never stronger than the token creating them, and never replace an existing name', async () => {
    expect((await mint('main', { name: 'by-admin', role: 'admin' }, tokens.admin)).status).toBe(201);
    const byDeveloper = await mint('main', { name: 'by-developer', role: 'viewer' }, tokens.developer);
    expect(byDeveloper.status).toBe(403);
    expect(byDeveloper.json.detail).toContain("'api-token:write'");
    const again = await mint('main', { name: 'by-admin', role: 'viewer' }, tokens.admin);
    expect(again.status).toBe(409);
    const invalid = await mint('main', { name: ' ', role: 'owner', namespace: '..', extra: 1 });
    expect(invalid.status).toBe(400);
    expect(invalid.json.errors.map((problem: { path: string }) => problem.path).sort()).toEqual([
      '$',
      'name',
      'namespace',
      'role',
    ]);
  });

  it("keep the bootstrap admin's token out of a tenant admin's reach", async () => {
    const bootstrap = (await call('GET', '/api/v1/main/api-tokens')).json.find(
      (token: { name: string }) => token.name === 'bootstrap-admin',
    );
    expect(bootstrap).toMatchObject({ instanceAdmin: true, role: 'admin' });
    const refused = await call('DELETE', `/api/v1/main/api-tokens/${bootstrap.id}`, { token: tokens.admin });
    expect(refused.status).toBe(403);
    expect((await call('GET', '/api/v1/instance/worker-queues')).status).toBe(200);
  });
});

describe('route permissions', () => {
  it('give a viewer 403 naming the permission on every route it does not hold, and 200 on the reads it does', async () => {
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const route of apiRoutes()) {
      const permission = permissionOf(route);
      const request = requestFor(route);
      const answer = await call(route.method, request.path, { ...request, token: tokens.viewer });
      const label = `${route.method} ${route.path} (${permissionName(permission)})`;
      if (holderOf(permission) === 'viewer') {
        expected.push(`${label}: ${readAnswer(route)}`);
        outcomes.push(`${label}: ${answer.status}`);
      } else {
        expected.push(`${label}: 403 naming '${permissionName(permission)}'`);
        const named = typeof answer.json?.detail === 'string' && answer.json.detail.includes(`'${permissionName(permission)}'`);
        outcomes.push(`${label}: ${answer.status}${named ? ` naming '${permissionName(permission)}'` : ''}`);
      }
    }
    expect(outcomes).toEqual(expected);
    expect(expected.filter((line) => line.endsWith(': 200')).length).toBeGreaterThanOrEqual(7);
  }, 120_000);

  it('let a developer write flows and run and kill executions', async () => {
    const token = tokens.developer;
    expect((await call('POST', '/api/v1/main/flows', { ...yaml(flowYaml('company.dev', 'made')), token })).status).toBe(201);
    const run = await call('POST', '/api/v1/main/executions/company.dev/made', { ...json({}), token });
    expect(run.status).toBe(200);
    expect((await call('DELETE', `/api/v1/main/executions/${run.json.id}/kill`, { token })).status).toBe(202);
    expect((await call('DELETE', '/api/v1/main/flows/company.dev/made', { token })).status).toBe(204);
  });

  it('refuse a route that declares no permission to everyone, the instance admin included', async () => {
    const answer = await call('GET', '/api/v1/main/undeclared');
    expect(answer.status).toBe(403);
    expect(answer.json.detail).toBe('This route declares no permission, so it is refused to everyone');
    expect(JSON.stringify(answer.json)).not.toContain('should never be seen');
  });

  it('leave health and the OpenAPI document open, and want a token everywhere else', async () => {
    expect((await call('GET', '/health/live', { token: null })).status).toBe(200);
    expect((await call('GET', '/api/v1/openapi.json', { token: null })).status).toBe(200);
    expect((await call('GET', '/api/v1/main/flows/search', { token: null })).status).toBe(401);
  });

  it('apply whatever the case of the path, which routing ignores', async () => {
    expect((await call('GET', '/API/v1/main/flows/search', { token: null })).status).toBe(401);
    const viewer = await call('GET', '/Api/V1/main/api-tokens', { token: tokens.viewer });
    expect(viewer.status).toBe(403);
    expect(JSON.stringify(viewer.json)).not.toContain('bootstrap-admin');
  });
});

describe('a token bound to a namespace prefix', () => {
  const token = () => tokens.bound;

  it('runs the flows of its prefix only', async () => {
    expect((await call('POST', '/api/v1/main/executions/company.team/hello', { ...json({}), token: token() })).status).toBe(200);
    const elsewhere = await call('POST', '/api/v1/main/executions/other.ns/hello', { ...json({}), token: token() });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.json.detail).toBe(
      "Missing permission 'execution:write' on namespace 'other.ns': this one is bound to 'company.team'",
    );
  });

  it('reads, kills, restarts, replays and follows executions of its prefix only', async () => {
    expect((await call('GET', `/api/v1/main/executions/${inTeam}`, { token: token() })).status).toBe(200);
    expect((await call('GET', `/api/v1/main/executions/${inOther}`, { token: token() })).status).toBe(403);
    expect((await call('GET', `/api/v1/main/logs/${inOther}`, { token: token() })).status).toBe(403);
    expect((await call('DELETE', `/api/v1/main/executions/${inOther}/kill`, { token: token() })).status).toBe(403);
    expect((await call('POST', `/api/v1/main/executions/${inOther}/restart`, { token: token() })).status).toBe(403);
    expect((await call('POST', `/api/v1/main/executions/${inOther}/replay`, { token: token() })).status).toBe(403);
    expect((await call('GET', `/api/v1/main/executions/${inOther}/follow`, { token: token() })).status).toBe(403);
    expect((await call('GET', '/api/v1/main/executions/no-such-execution', { token: token() })).status).toBe(404);
  });

  it('searches within its prefix, and is refused a namespace outside it', async () => {
    const executions = await call('GET', '/api/v1/main/executions/search?size=100', { token: token() });
    expect(executions.status).toBe(200);
    expect(executions.json.results.length).toBeGreaterThan(0);
    expect(executions.json.results.every((execution: { namespace: string }) => execution.namespace === 'company.team')).toBe(
      true,
    );
    const flows = await call('GET', '/api/v1/main/flows/search', { token: token() });
    expect(flows.json.results.map((flow: { namespace: string }) => flow.namespace)).toEqual(['company.team']);
    expect((await call('GET', '/api/v1/main/flows/search?namespace=other.ns', { token: token() })).status).toBe(403);
    expect((await call('GET', '/api/v1/main/executions/search?namespace=other', { token: token() })).status).toBe(403);
  });

  it('writes flows in its prefix and below, whatever namespace the YAML names elsewhere is refused', async () => {
    const below = await call('POST', '/api/v1/main/flows', { ...yaml(flowYaml('company.team.etl', 'load')), token: token() });
    expect(below.status).toBe(201);
    const outside = await call('POST', '/api/v1/main/flows', { ...yaml(flowYaml('company.teammates', 'x')), token: token() });
    expect(outside.status).toBe(403);
    expect(outside.json.detail).toContain("namespace 'company.teammates'");
    expect(
      (await call('PUT', '/api/v1/main/flows/other.ns/hello', { ...yaml(flowYaml('other.ns')), token: token() })).status,
    ).toBe(403);
    expect((await call('GET', '/api/v1/main/flows/other.ns/hello', { token: token() })).status).toBe(403);
  });

  it('cannot act on the whole tenant', async () => {
    const answer = await call('GET', '/api/v1/main/api-tokens', { token: token() });
    expect(answer.status).toBe(403);
  });
});

describe('tenant isolation', () => {
  it("lets a tenant's admin read, run, kill or list nothing of another tenant, through every route", async () => {
    const outcomes: string[] = [];
    for (const route of tenantRoutes()) {
      const request = requestFor(route, 'main');
      const answer = await call(route.method, request.path, { ...request, token: tokens.otherTenant });
      outcomes.push(`${route.method} ${route.path}: ${answer.status} ${answer.json?.detail ?? ''}`);
    }
    expect(outcomes).toEqual(
      tenantRoutes().map(
        (route) =>
          `${route.method} ${route.path}: 403 Missing permission '${permissionName(permissionOf(route))}' on tenant 'main'`,
      ),
    );
    expect(outcomes.length).toBeGreaterThan(15);
  }, 120_000);

  it("lets a tenant's admin reach nothing of another tenant through its own tenant's routes, naming the other's ids", async () => {
    // Tenant other's admin, on other's routes, with main's execution, flow, namespace and token ids.
    // Routes naming one answer 404; lists hold nothing of main; writes create other's own.
    // The routes creating from a body run last, so that the reads before them find other empty.
    const creates = (route: ApiRoute) =>
      (route.method === 'POST' && /\/(flows|api-tokens)$/.test(route.path)) ||
      (route.method === 'PUT' && (route.path.includes('/flows/') || route.path.endsWith('/files')));
    const routes = [...everyTenantRoute().filter((route) => !creates(route)), ...everyTenantRoute().filter(creates)];
    const namesSomething = (route: ApiRoute) => /:(?!tenant\b)\w+/.test(route.path);
    // A namespace's file listing is a list: other's own namespace of that name, empty (the leak check reads it).
    const lists = (route: ApiRoute) => route.path.endsWith('/files/directory');
    const expectedOf = (route: ApiRoute) => (namesSomething(route) && !creates(route) && !lists(route) ? '404' : 'ok');
    const markers = [inTeam, inOther, mainTokenId, 'company.team', 'other.ns', 'bootstrap-admin', 'ci-team'];

    const outcomes: string[] = [];
    const leaks: string[] = [];
    for (const route of routes) {
      const request = requestFor(route, 'other');
      const path = request.path.replace('/api-tokens/00000000-0000-4000-8000-000000000000', `/api-tokens/${mainTokenId}`);
      // Bodies these routes would accept: what they answer is then about the ids alone.
      const body =
        route.path.endsWith('/:triggerId') && route.method === 'PUT'
          ? json({ disabled: true })
          : route.method === 'POST' && route.path.endsWith('/api-tokens')
            ? json({ name: 'other-ci', role: 'viewer' })
            : route.method === 'PUT' && route.path.endsWith('/files')
              ? { body: 'other tenant', contentType: 'text/plain' }
              : {};
      const answer = await call(route.method, path, { ...request, ...body, token: tokens.otherTenant });
      const ok = answer.status >= 200 && answer.status < 300;
      outcomes.push(`${route.method} ${route.path}: ${ok ? 'ok' : answer.status}`);
      if (ok && !creates(route)) {
        const text = JSON.stringify(answer.json ?? null);
        for (const marker of markers) if (text.includes(marker)) leaks.push(`${route.method} ${route.path} shows '${marker}'`);
      }
    }
    expect(outcomes).toEqual(routes.map((route) => `${route.method} ${route.path}: ${expectedOf(route)}`));
    expect(leaks).toEqual([]);
    expect(routes.filter((route) => expectedOf(route) === '404').length).toBeGreaterThan(15);

    // Main's data is as it was: its flow not replaced by other's, its execution not killed, its token not revoked.
    const flow = await call('GET', '/api/v1/main/flows/company.team/hello');
    expect(flow.json.revision).toBe(1);
    const execution = await call('GET', `/api/v1/main/executions/${inTeam}`);
    expect(['KILLING', 'KILLED']).not.toContain(execution.json.state.current);
    expect((await call('GET', '/api/v1/main/flows/search', { token: tokens.admin })).status).toBe(200);
    // Other's own writes stayed in other.
    const ownFlow = await call('GET', '/api/v1/other/flows/company.team/hello', { token: tokens.otherTenant });
    expect(ownFlow.status).toBe(200);
    // Deleting its own flow of the same coordinates leaves main's where it is.
    expect((await call('DELETE', '/api/v1/other/flows/company.team/hello', { token: tokens.otherTenant })).status).toBe(204);
    expect((await call('GET', '/api/v1/main/flows/company.team/hello')).json.revision).toBe(1);
  }, 120_000);

  it('keeps instance routes to instance admins', async () => {
    const instanceRoutes = apiRoutes().filter((route) => route.path.startsWith('/api/v1/instance/'));
    expect(instanceRoutes.length).toBeGreaterThan(10);
    for (const route of instanceRoutes) {
      const request = requestFor(route);
      const answer = await call(route.method, request.path, { ...request, token: tokens.admin });
      expect(`${route.method} ${route.path}: ${answer.status}`).toBe(`${route.method} ${route.path}: 403`);
    }
  }, 120_000);

  it('still answers a tenant its own', async () => {
    expect((await call('GET', '/api/v1/other/flows/search', { token: tokens.otherTenant })).status).toBe(200);
    expect(
      (await call('GET', '/api/v1/other/api-tokens', { token: tokens.otherTenant })).json.map((t: { name: string }) => t.name),
    ).toEqual(expect.arrayContaining(['other-admin']));
  });
});

describe('namespaces', () => {
  beforeAll(async () => {
    await api.repositories.namespaces.setWorkerSelector('main', 'company.team', { tags: ['gpu'] });
    await api.repositories.namespaces.setWorkerSelector('main', 'company.empty', { tags: ['arm'] });
  });

  it('are listed with their live flow counts and worker-selector defaults, settings-only ones included', async () => {
    const listed = await call('GET', '/api/v1/main/namespaces');
    expect(listed.status).toBe(200);
    const byName = new Map(listed.json.map((entry: { namespace: string }) => [entry.namespace, entry]));
    expect(byName.get('company.team')).toEqual({
      namespace: 'company.team',
      flowCount: 1,
      workerSelector: { tags: ['gpu'] },
      variables: null,
    });
    expect(byName.get('company.empty')).toMatchObject({ flowCount: 0, workerSelector: { tags: ['arm'] } });
    expect(byName.get('other.ns')).toMatchObject({ flowCount: 1, workerSelector: null });
    expect((await call('GET', '/api/v1/main/namespaces/other.ns')).json).toMatchObject({ namespace: 'other.ns', flowCount: 1 });
    const unknown = await call('GET', '/api/v1/main/namespaces/no.such.namespace');
    expect(unknown.status).toBe(404);
    expect((await call('GET', '/api/v1/other/namespaces', { token: tokens.otherTenant })).json).toEqual([]);
  });

  it('are listed to a namespace-bound token within its prefix only', async () => {
    const listed = await call('GET', '/api/v1/main/namespaces', { token: tokens.bound });
    expect(listed.status).toBe(200);
    const names: string[] = listed.json.map((entry: { namespace: string }) => entry.namespace);
    expect(names).toContain('company.team');
    expect(names.every((name) => name === 'company.team' || name.startsWith('company.team.'))).toBe(true);
    expect((await call('GET', '/api/v1/main/namespaces/other.ns', { token: tokens.bound })).status).toBe(403);
    expect((await call('GET', '/api/v1/main/namespaces?namespace=company', { token: tokens.bound })).status).toBe(403);
  });
});

describe('tenants', () => {
  it('are created and listed by instance admins only, main being there from the start', async () => {
    expect((await call('POST', '/api/v1/instance/tenants', json({ id: 'team-b', name: 'Team B' }))).status).toBe(201);
    expect((await call('POST', '/api/v1/instance/tenants', json({ id: 'team-b' }))).status).toBe(409);
    for (const id of ['MAIN', 'main%20', '*', 'instance']) {
      const refused = await call('POST', '/api/v1/instance/tenants', json({ id }));
      expect(refused.status).toBe(400);
      expect(refused.json.errors[0].path).toBe('id');
    }
    const listed = await call('GET', '/api/v1/instance/tenants');
    expect(listed.json.map((tenant: { id: string }) => tenant.id)).toEqual(expect.arrayContaining(['main', 'team-b']));
    expect(listed.json.find((tenant: { id: string }) => tenant.id === 'team-b')).toMatchObject({
      name: 'Team B',
      disabledAt: null,
    });
    expect((await call('POST', '/api/v1/instance/tenants', { ...json({ id: 'team-c' }), token: tokens.admin })).status).toBe(403);
  });

  it('that were never created answer 404 naming the tenant on every tenant route, to an instance admin', async () => {
    // Ids a typo, a case or an encoding makes of a real one, and ids of the instance's own vocabulary.
    for (const tenant of ['nowhere', 'MAIN', 'main%20', '*', 'instance%20', 'Main']) {
      const named = decodeURIComponent(tenant);
      const outcomes: string[] = [];
      for (const route of everyTenantRoute()) {
        const request = requestFor(route, tenant);
        const answer = await call(route.method, request.path, request);
        outcomes.push(`${route.method} ${route.path}: ${answer.status} ${answer.json?.detail ?? ''}`);
      }
      expect(outcomes).toEqual(
        everyTenantRoute().map((route) => `${route.method} ${route.path}: 404 Tenant '${named}' does not exist`),
      );
    }
    // What the route list holds, public routes included, is what was checked.
    expect(everyTenantRoute().length).toBeGreaterThan(15);
    expect(everyTenantRoute().some((route) => route.access?.public === true)).toBe(true);
    // Nothing was created on the way: the tenants are those made here.
    const listed = await call('GET', '/api/v1/instance/tenants');
    expect(listed.json.map((tenant: { id: string }) => tenant.id)).not.toEqual(expect.arrayContaining(['nowhere']));
  }, 300_000);

  it('that were never created answer a tenant-bound caller 403, so it learns nothing of which tenants exist', async () => {
    const answer = await call('GET', '/api/v1/nowhere/flows/search', { token: tokens.admin });
    expect(answer.status).toBe(403);
    expect(answer.json.detail).toBe("Missing permission 'flow:read' on tenant 'nowhere'");
    expect((await call('GET', '/api/v1/nowhere/flows/search', { token: null })).status).toBe(401);
  });

  it('answer 404 on every route once disabled, to their own tokens and to instance admins, until enabled again', async () => {
    expect((await call('POST', '/api/v1/instance/tenants', json({ id: 'team-d' }))).status).toBe(201);
    const token = (await mint('team-d', { name: 'ci', role: 'developer' })).json.token;
    expect((await call('GET', '/api/v1/team-d/flows/search', { token })).status).toBe(200);

    const disabled = await call('POST', '/api/v1/instance/tenants/team-d/disable', json({}));
    expect(disabled.status).toBe(200);
    expect(disabled.json.disabledAt).not.toBeNull();
    for (const who of [token, api.adminToken]) {
      const refused = await call('GET', '/api/v1/team-d/flows/search', { token: who });
      expect(refused.status).toBe(404);
      expect(refused.json.detail).toBe("Tenant 'team-d' does not exist");
    }
    // Every route, its webhooks included: a disabled tenant's flows are neither changed nor run.
    const outcomes: string[] = [];
    for (const route of everyTenantRoute()) {
      const request = requestFor(route, 'team-d');
      const answer = await call(route.method, request.path, request);
      outcomes.push(`${route.method} ${route.path}: ${answer.status} ${answer.json?.detail ?? ''}`);
    }
    expect(outcomes).toEqual(
      everyTenantRoute().map((route) => `${route.method} ${route.path}: 404 Tenant 'team-d' does not exist`),
    );

    expect((await call('POST', '/api/v1/instance/tenants/team-d/enable', json({}))).status).toBe(200);
    expect((await call('GET', '/api/v1/team-d/flows/search', { token })).status).toBe(200);
    // Disabled by another api instance (straight in the database): refused here too, once the
    // few seconds this instance keeps an enabled tenant have passed.
    await api.repositories.tenants.setDisabled('team-d', new Date());
    const refusedBy = Date.now() + SERVED_TENANT_TTL_MS + 1_000;
    let status = 0;
    while (status !== 404 && Date.now() < refusedBy) {
      status = (await call('GET', '/api/v1/team-d/flows/search', { token })).status;
      if (status !== 404) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(404);
    expect((await call('POST', '/api/v1/instance/tenants/main/disable', json({}))).status).toBe(403);
    expect((await call('POST', '/api/v1/instance/tenants/nowhere/disable', json({}))).status).toBe(404);
  }, 120_000);
});
