import { ConfigError, loadRoleConfig } from './load-config';
import { Role } from './roles';

function problemsOf(role: Role, env: NodeJS.ProcessEnv): readonly string[] {
  try {
    loadRoleConfig(role, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected the config to be refused');
}

const validServerEnv = { DATABASE_URL: 'postgresql://lanner:pw@db:5432/lanner', KAFKA_BROKERS: 'kafka:9092' };

describe('refusing bad config', () => {
  it('names a non-numeric port, the accepted range and the value given', () => {
    expect(problemsOf('executor', { ...validServerEnv, LANNER_HTTP_PORT: 'abc' })).toEqual([
      'LANNER_HTTP_PORT: expected an integer 1-65535, got "abc"',
    ]);
  });

  it.each(['0', '65536', '80.5', '-1'])('refuses the port %s', (port) => {
    expect(problemsOf('worker', { LANNER_WORKER_CONTROLLERS: 'c:1', LANNER_HTTP_PORT: port })).toEqual([
      `LANNER_HTTP_PORT: expected an integer 1-65535, got "${port}"`,
    ]);
  });

  it.each(['-1', '1001', '2.5', 'lots'])("names the controller's heap growing percent %s and the accepted range", (percent) => {
    const controllerEnv = { ...validServerEnv, LANNER_JWT_SIGNING_KEY: 'a-worker-signing-key-of-at-least-32-bytes' };
    expect(problemsOf('controller', { ...controllerEnv, LANNER_HEAP_GROWING_PERCENT: percent })).toEqual([
      `LANNER_HEAP_GROWING_PERCENT: expected an integer 0-1000, got "${percent}"`,
    ]);
  });

  it('names a storage retention or an inline output limit that is not a number of the range', () => {
    expect(problemsOf('standalone', { LANNER_STORAGE_RETENTION_DAYS: 'a week' })).toEqual([
      'LANNER_STORAGE_RETENTION_DAYS: expected an integer 1-36500, or empty, got "a week"',
    ]);
    expect(problemsOf('worker', { LANNER_WORKER_CONTROLLERS: 'c:1', LANNER_STORAGE_OUTPUT_INLINE_MAX_BYTES: '0' })).toEqual([
      'LANNER_STORAGE_OUTPUT_INLINE_MAX_BYTES: expected an integer 1-1073741824, got "0"',
    ]);
    expect(loadRoleConfig('standalone', { LANNER_STORAGE_RETENTION_DAYS: '30' })).toMatchObject({
      storageRetentionDays: 30,
    });
    expect(loadRoleConfig('standalone', {})).toMatchObject({ storageRetentionDays: undefined });
  });

  it('names the bucket when S3 internal storage has none, and a storage type it does not know', () => {
    expect(problemsOf('worker', { LANNER_WORKER_CONTROLLERS: 'c:1', LANNER_STORAGE_TYPE: 's3' })).toEqual([
      'LANNER_STORAGE_S3_BUCKET: required when LANNER_STORAGE_TYPE is s3, not set',
    ]);
    expect(problemsOf('standalone', { LANNER_STORAGE_TYPE: 'gcs' })).toEqual([
      'LANNER_STORAGE_TYPE: expected one of local, s3, got "gcs"',
    ]);
  });

  it('names every missing required variable of a server role', () => {
    expect(problemsOf('executor', {})).toEqual(['DATABASE_URL: required, not set', 'KAFKA_BROKERS: required, not set']);
  });

  it('names the worker controller list when it is missing or malformed', () => {
    expect(problemsOf('worker', {})).toEqual(['LANNER_WORKER_CONTROLLERS: required, not set']);
    expect(problemsOf('worker', { LANNER_WORKER_CONTROLLERS: 'controller-0' })).toEqual([
      'LANNER_WORKER_CONTROLLERS: expected a comma-separated list of host:port, got "controller-0"',
    ]);
  });

  it('reports each bad variable on its own line, in table order', () => {
    const problems = problemsOf('scheduler', {
      KAFKA_BROKERS: 'kafka:99999',
      DATABASE_URL: 'postgresql://lanner:pw@db/lanner',
      LANNER_LOG_LEVEL: 'verbose',
      LANNER_KAFKA_CLIENT_ID: 'has space',
    });
    expect(problems).toEqual([
      'LANNER_LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent, got "verbose"',
      'KAFKA_BROKERS: expected a comma-separated list of host:port, got "kafka:99999"',
      'LANNER_KAFKA_CLIENT_ID: expected letters, digits, ".", "_" or "-", got "has space"',
    ]);
    expect(problems.every((line) => !line.includes('\n'))).toBe(true);
  });

  it('ignores variables of other roles', () => {
    expect(() => loadRoleConfig('worker', { LANNER_WORKER_CONTROLLERS: 'c:1', DATABASE_URL: 'not a url' })).not.toThrow();
  });
});

describe('secrets in config errors', () => {
  it('names a bad DATABASE_URL without printing its value', () => {
    const secretUrl = 'mysql://lanner:hunter2-secret@db/lanner';
    const problems = problemsOf('indexer', { ...validServerEnv, DATABASE_URL: secretUrl });
    expect(problems).toEqual(['DATABASE_URL: expected a postgres:// or postgresql:// URL with a host']);
    expect(problems.join('\n')).not.toContain('hunter2');
  });
});
