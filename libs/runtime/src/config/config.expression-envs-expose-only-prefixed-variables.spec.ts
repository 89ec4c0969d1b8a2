import { ConfigError, expressionEnvs, loadRoleConfig } from './load-config';

const validServerEnv = { DATABASE_URL: 'postgresql://lanner:pw@db:5432/lanner', KAFKA_BROKERS: 'kafka:9092' };

function problemsOf(env: NodeJS.ProcessEnv): readonly string[] {
  try {
    loadRoleConfig('executor', { ...validServerEnv, ...env });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected the config to be refused');
}

describe("Kestra's envs and globals in the executor's config", () => {
  it('defaults to the ENV_ prefix and no globals', () => {
    expect(loadRoleConfig('executor', validServerEnv).expression).toEqual({ envPrefix: 'ENV_', globals: {} });
    expect(loadRoleConfig('standalone', {}).expression).toEqual({ envPrefix: 'ENV_', globals: {} });
  });

  it('reads globals as a JSON object and the prefix as given', () => {
    const config = loadRoleConfig('executor', {
      ...validServerEnv,
      LANNER_EXPRESSION_ENV_PREFIX: 'FLOW_',
      LANNER_EXPRESSION_GLOBALS: '{"team": "data", "limits": {"rows": 100}}',
    });
    expect(config.expression).toEqual({ envPrefix: 'FLOW_', globals: { team: 'data', limits: { rows: 100 } } });
  });

  it('exposes only the prefixed variables, prefix left out and lower-cased', () => {
    const env = { ENV_REGION: 'eu', ENV_Big_Name: 'x', ENV_: 'empty name', DATABASE_URL: 'postgresql://secret', REGION: 'us' };
    expect(expressionEnvs('ENV_', env)).toEqual({ region: 'eu', big_name: 'x' });
  });

  it.each(['LANNER_', 'LANNER_X_', 'LAN', 'AWS_', 'DATABASE', 'PG', 'PGPASS', 'S3_', 'KAFKA_', 'NODE_'])(
    "refuses the prefix %s, which would reach Lanner's own or credential variables",
    (prefix) => {
      expect(problemsOf({ LANNER_EXPRESSION_ENV_PREFIX: prefix })).toEqual([
        `LANNER_EXPRESSION_ENV_PREFIX: expected letters, digits and "_" (such as ENV_) not covering LANNER_, DATABASE_, AWS_, S3_, KAFKA_, PG, NODE_, got "${prefix}"`,
      ]);
    },
  );

  it.each(['[1, 2]', '"text"', '{not json', 'null'])('refuses globals that are not a JSON object: %s', (globals) => {
    expect(problemsOf({ LANNER_EXPRESSION_GLOBALS: globals })).toEqual([
      `LANNER_EXPRESSION_GLOBALS: expected a JSON object, such as {"region": "eu"}, got ${JSON.stringify(globals)}`,
    ]);
  });
});
