import { FlowNotFound, AlreadyExists } from '../errors';
import { flowKey } from './flow.repository';
import { useTestRepositories } from '../testing/test-database';

describe('FlowRepository', () => {
  const fixture = useTestRepositories();

  const yaml = (message: string) =>
    `id: hello\nnamespace: company.team\ntasks:\n  - id: say\n    type: io.kestra.plugin.core.log.Log\n    message: ${message}\n`;
  const flow = (message: string) => ({
    namespace: 'company.team',
    flowId: 'hello',
    source: yaml(message),
    definition: {
      id: 'hello',
      namespace: 'company.team',
      tasks: [{ id: 'say', type: 'io.kestra.plugin.core.log.Log', message }],
    },
  });

  it('stores revisions and returns the source and parsed flow as saved', async () => {
    const first = await fixture.repositories.flows.create('main', flow('one'));
    expect(first).toMatchObject({
      tenantId: 'main',
      namespace: 'company.team',
      flowId: 'hello',
      revision: 1,
      deleted: false,
      source: yaml('one'),
    });
    await expect(fixture.repositories.flows.create('main', flow('again'))).rejects.toBeInstanceOf(AlreadyExists);

    const second = await fixture.repositories.flows.saveRevision('main', flow('two'));
    expect(second.revision).toBe(2);
    expect(await fixture.repositories.flows.getLatest('main', 'company.team', 'hello')).toEqual(second);
    expect((await fixture.repositories.flows.getRevision('main', 'company.team', 'hello', 1)).definition).toEqual(
      flow('one').definition,
    );
    await expect(fixture.repositories.flows.getRevision('main', 'company.team', 'hello', 9)).rejects.toBeInstanceOf(FlowNotFound);
  });

  it('reads the live revision of many flows at once, leaving out the deleted and the unknown', async () => {
    const flows = fixture.repositories.flows;
    await flows.create('tenant-many', { ...flow('a'), namespace: 'company.many', flowId: 'many-a' });
    await flows.saveRevision('tenant-many', { ...flow('a2'), namespace: 'company.many', flowId: 'many-a' });
    await flows.create('tenant-many', { ...flow('b'), namespace: 'company.many', flowId: 'many-b' });
    await flows.softDelete('tenant-many', 'company.many', 'many-b');
    const found = await flows.getLatestMany([
      { tenantId: 'tenant-many', namespace: 'company.many', flowId: 'many-a' },
      { tenantId: 'tenant-many', namespace: 'company.many', flowId: 'many-b' },
      { tenantId: 'other-tenant', namespace: 'company.many', flowId: 'many-a' },
      { tenantId: 'tenant-many', namespace: 'company.many', flowId: 'nowhere' },
    ]);
    expect([...found.keys()]).toEqual([flowKey('tenant-many', 'company.many', 'many-a')]);
    expect(found.get(flowKey('tenant-many', 'company.many', 'many-a'))).toEqual(
      await flows.getLatest('tenant-many', 'company.many', 'many-a'),
    );
  });

  it('keeps tenants apart', async () => {
    await expect(fixture.repositories.flows.getLatest('other-tenant', 'company.team', 'hello')).rejects.toBeInstanceOf(
      FlowNotFound,
    );
    expect((await fixture.repositories.flows.search('other-tenant', { page: 1, size: 10 })).total).toBe(0);
  });

  it('searches live flows by namespace prefix and text, with a total', async () => {
    await fixture.repositories.flows.create('main', { ...flow('x'), namespace: 'company.team.etl', flowId: 'load' });
    await fixture.repositories.flows.create('main', { ...flow('x'), namespace: 'company.teams', flowId: 'other' });
    const inTeam = await fixture.repositories.flows.search('main', { namespace: 'company.team', page: 1, size: 10 });
    expect(inTeam.results.map((f) => `${f.namespace}/${f.flowId}@${f.revision}`)).toEqual([
      'company.team/hello@2',
      'company.team.etl/load@1',
    ]);
    expect(inTeam.total).toBe(2);

    const secondPage = await fixture.repositories.flows.search('main', { namespace: 'company', page: 2, size: 2 });
    expect(secondPage.results.map((f) => f.flowId)).toEqual(['other']);
    expect(secondPage.total).toBe(3);
    expect((await fixture.repositories.flows.search('main', { page: 9, size: 2 })).total).toBe(3);
    expect(
      (await fixture.repositories.flows.search('main', { text: 'LOA', page: 1, size: 10 })).results.map((f) => f.flowId),
    ).toEqual(['load']);
    expect((await fixture.repositories.flows.search('main', { text: '%', page: 1, size: 10 })).total).toBe(0);
  });

  it('soft-deletes: the flow disappears, its old revisions stay readable, and it can be created again', async () => {
    await fixture.repositories.flows.softDelete('main', 'company.team.etl', 'load');
    await expect(fixture.repositories.flows.getLatest('main', 'company.team.etl', 'load')).rejects.toBeInstanceOf(FlowNotFound);
    await expect(fixture.repositories.flows.softDelete('main', 'company.team.etl', 'load')).rejects.toBeInstanceOf(FlowNotFound);
    expect((await fixture.repositories.flows.getRevision('main', 'company.team.etl', 'load', 1)).source).toBe(yaml('x'));
    expect((await fixture.repositories.flows.search('main', { namespace: 'company.team.etl', page: 1, size: 10 })).total).toBe(0);

    const recreated = await fixture.repositories.flows.create('main', {
      ...flow('y'),
      namespace: 'company.team.etl',
      flowId: 'load',
    });
    expect(recreated.revision).toBe(3);
  });
});
