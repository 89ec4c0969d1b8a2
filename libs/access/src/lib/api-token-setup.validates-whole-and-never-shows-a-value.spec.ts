import { validateApiTokenSetup } from './api-token-setup';

const value = (c: string) => c.repeat(43);

describe('API tokens in the declarative setup', () => {
  it('reads each token with its tenant, role and optional namespace', () => {
    const result = validateApiTokenSetup([
      { tenant: 'main', name: 'ci', role: 'developer', namespace: 'company.team', token: value('a') },
      { tenant: 'main', name: 'dashboards', role: 'viewer', token: ` ${value('b')}\n` },
    ]);
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.tokens.map(({ secret, ...rest }) => ({ ...rest, value: secret.reveal() }))).toEqual([
      { tenantId: 'main', name: 'ci', role: 'developer', namespace: 'company.team', value: value('a') },
      { tenantId: 'main', name: 'dashboards', role: 'viewer', namespace: null, value: value('b') },
    ]);
    expect(JSON.stringify(result.tokens)).not.toContain(value('a'));
    expect(String(result.tokens[0].secret)).toBe('[redacted API token]');
    expect(validateApiTokenSetup(undefined)).toEqual({ ok: true, tokens: [] });
  });

  it('reports every problem with its path, and no value in any message', () => {
    const short = 'not-long-enough';
    const result = validateApiTokenSetup([
      { tenant: '', name: 'ci', role: 'owner', namespace: '.bad', token: short, scope: 'all' },
      { tenant: 'main', name: 'ci', role: 'viewer', token: '${CI_TOKEN}' },
      { tenant: 'main', name: 'twice', role: 'viewer', token: value('c') },
      { tenant: 'main', name: 'twice', role: 'admin', token: value('d') },
      'ci',
    ]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((problem) => problem.path)).toEqual([
      'setup.apiTokens[0].scope',
      'setup.apiTokens[0].tenant',
      'setup.apiTokens[0].role',
      'setup.apiTokens[0].namespace',
      'setup.apiTokens[0].token',
      'setup.apiTokens[1].token',
      'setup.apiTokens[3].name',
      'setup.apiTokens[4]',
    ]);
    expect(result.problems[5].message).toBe('is an unresolved environment placeholder: set the variable it names');
    expect(result.problems[6].message).toBe("is declared twice for tenant 'main'");
    expect(JSON.stringify(result.problems)).not.toContain(short);
    expect(validateApiTokenSetup({ ci: 'x' })).toEqual({
      ok: false,
      problems: [{ path: 'setup.apiTokens', message: 'must be a list of API tokens' }],
    });
  });
});
