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
});
