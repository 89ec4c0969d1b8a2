import { useTestRepositories } from '../testing/test-database';

describe('ApiTokenRepository', () => {
  const fixture = useTestRepositories();
  const hash = (c: string) => c.repeat(64);

  it('grants idempotently, follows a changed hash, and finds only usable tokens', async () => {
    const grant = {
      tenantId: 'main',
      name: 'bootstrap-admin',
      tokenHash: hash('a'),
      role: 'ADMIN' as const,
      instanceAdmin: true,
    };
    const first = await fixture.repositories.apiTokens.grant(grant);
    expect((await fixture.repositories.apiTokens.grant(grant)).id).toBe(first.id);
    expect(await fixture.repositories.apiTokens.findUsableByHash(hash('a'), new Date())).toMatchObject({
      tokenHash: hash('a'),
      token: { id: first.id, instanceAdmin: true },
    });

    await fixture.repositories.apiTokens.grant({ ...grant, tokenHash: hash('b') });
    expect(await fixture.repositories.apiTokens.findUsableByHash(hash('a'), new Date())).toBeNull();
    expect((await fixture.repositories.apiTokens.findUsableByHash(hash('b'), new Date()))?.token.id).toBe(first.id);
    expect(await fixture.repositories.apiTokens.findUsableByHash('not-a-hash', new Date())).toBeNull();
    await expect(fixture.repositories.apiTokens.grant({ ...grant, tokenHash: 'plain-token-value' })).rejects.toThrow('SHA-256');
  });

  it('creates tenant tokens once per name, lists and revokes them within their tenant, and records uses once a minute', async () => {
    const tokens = fixture.repositories.apiTokens;
    const created = await tokens.create({
      tenantId: 'acme',
      name: 'ci',
      tokenHash: hash('c'),
      role: 'DEVELOPER',
      namespace: 'company.team',
      expiresAt: null,
    });
    expect(created).toMatchObject({ tenantId: 'acme', role: 'DEVELOPER', namespace: 'company.team', instanceAdmin: false });
    await expect(
      tokens.create({ tenantId: 'acme', name: 'ci', tokenHash: hash('d'), role: 'VIEWER', namespace: null, expiresAt: null }),
    ).rejects.toThrow("API token 'ci' already exists");
    expect((await tokens.list('acme')).map((token) => token.name)).toEqual(['ci']);
    expect(await tokens.list('other')).toEqual([]);

    const at = new Date('2030-01-01T00:00:00Z');
    await tokens.markUsed(created.id, at);
    await tokens.markUsed(created.id, new Date(at.getTime() + 30_000));
    expect((await tokens.get('acme', created.id)).lastUsedAt).toEqual(at);
    await tokens.markUsed(created.id, new Date(at.getTime() + 61_000));
    expect((await tokens.get('acme', created.id)).lastUsedAt).toEqual(new Date(at.getTime() + 61_000));

    await expect(tokens.revoke('other', created.id, at)).rejects.toThrow('does not exist');
    await expect(tokens.get('acme', 'not-a-uuid')).rejects.toThrow('does not exist');
    expect((await tokens.revoke('acme', created.id, at)).revokedAt).toEqual(at);
    expect((await tokens.revoke('acme', created.id, new Date(at.getTime() + 1000))).revokedAt).toEqual(at);
    expect(await tokens.findUsableByHash(hash('c'), at)).toBeNull();
  });
});
