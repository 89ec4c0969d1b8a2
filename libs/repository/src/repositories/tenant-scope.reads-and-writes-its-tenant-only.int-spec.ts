import { ExecutionNotFound, FlowNotFound, NotFound } from '../errors';
import { useTestRepositories } from '../testing/test-database';
import { tenantScope } from './tenant-scope';

// The scope the API reads a tenant's data through: made only from a tenant the tenants table
// serves, and every read and write through it is that tenant's, on the real PostgreSQL.

describe('a tenant scope', () => {
  const fixture = useTestRepositories();
  const t0 = new Date('2026-12-01T10:00:00.000Z');
  const flow = (message: string) => ({
    namespace: 'company.team',
    flowId: 'hello',
    source: `id: hello\nnamespace: company.team\ntasks:\n  - { id: say, type: io.kestra.plugin.core.log.Log, message: ${message} }\n`,
    definition: {
      id: 'hello',
      namespace: 'company.team',
      tasks: [{ id: 'say', type: 'io.kestra.plugin.core.log.Log', message }],
    },
  });
  const execution = (id: string) => ({
    id,
    namespace: 'company.team',
    flowId: 'hello',
    flowRevision: 1,
    state: 'CREATED' as const,
    stateHistories: [{ state: 'CREATED' as const, date: t0 }],
    inputs: {},
    labels: {},
  });

  it('is made for a served tenant only: never for one never created or disabled', async () => {
    const tenants = fixture.repositories.tenants;
    await tenants.create({ id: 'scope-served', name: 'served' });
    await tenants.create({ id: 'scope-disabled', name: 'disabled' });
    await tenants.setDisabled('scope-disabled', t0);
    expect(await tenants.served('scope-served')).toBe('scope-served');
    expect(await tenants.served('main')).toBe('main');
    expect(await tenants.served('scope-disabled')).toBeNull();
    expect(await tenants.served('scope-never')).toBeNull();
    expect(await tenants.served('MAIN')).toBeNull();
  });

  it("reads and writes its tenant's rows only, the same ids in another tenant untouched", async () => {
    const repositories = fixture.repositories;
    await repositories.tenants.create({ id: 'scope-a', name: 'a' });
    await repositories.tenants.create({ id: 'scope-b', name: 'b' });
    const served = async (id: string) => {
      const tenantId = await repositories.tenants.served(id);
      if (tenantId === null) throw new Error(`tenant ${id} is not served`);
      return tenantScope(repositories, tenantId);
    };
    const a = await served('scope-a');
    const b = await served('scope-b');

    await a.flows.create(flow('of-a'));
    await a.executions.create(execution('scope-exec-a'));
    await a.apiTokens.create({ name: 'ci', tokenHash: 'a'.repeat(64), role: 'VIEWER', namespace: null, expiresAt: null });

    await expect(b.flows.getLatest('company.team', 'hello')).rejects.toBeInstanceOf(FlowNotFound);
    await expect(b.executions.get('scope-exec-a')).rejects.toBeInstanceOf(ExecutionNotFound);
    expect((await b.executions.search({ page: 1, size: 10 })).total).toBe(0);
    expect((await b.flows.search({ page: 1, size: 10 })).total).toBe(0);
    expect(await b.apiTokens.list()).toEqual([]);
    const tokenOfA = (await a.apiTokens.list())[0];
    await expect(b.apiTokens.revoke(tokenOfA.id, t0)).rejects.toBeInstanceOf(NotFound);
    await expect(b.flows.softDelete('company.team', 'hello')).rejects.toBeInstanceOf(FlowNotFound);

    // The same coordinates in b are b's own: a new revision 1, a's left as it was.
    expect((await b.flows.saveRevision(flow('of-b'))).revision).toBe(1);
    expect((await a.flows.getLatest('company.team', 'hello')).source).toContain('of-a');
    expect((await a.executions.get('scope-exec-a')).tenantId).toBe('scope-a');
    expect((await a.apiTokens.get(tokenOfA.id)).revokedAt).toBeNull();
    expect(a.tenantId).toBe('scope-a');
  });
});
