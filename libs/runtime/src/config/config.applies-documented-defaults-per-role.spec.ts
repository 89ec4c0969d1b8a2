import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_HTTP_PORTS } from './config-variables';
import { loadRoleConfig } from './load-config';
import { SERVER_ROLES } from './roles';

const serverEnv = {
  DATABASE_URL: 'postgresql://lanner:pw@db:5432/lanner',
  KAFKA_BROKERS: 'kafka-1:9092, kafka-2:9092',
  LANNER_ADMIN_TOKEN: 'a-bootstrap-admin-token-of-32-characters-or-more',
  LANNER_JWT_SIGNING_KEY: 'a-worker-jwt-signing-key-of-32-bytes-or-more',
};

/** The documented defaults of LANNER_HTTP_HEADERS_TIMEOUT_MS, _REQUEST_TIMEOUT_MS, _KEEP_ALIVE_TIMEOUT_MS and _MAX_CONNECTIONS. */
const DEFAULT_HTTP_LIMITS = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1024,
};

describe('role config defaults', () => {
  it.each(SERVER_ROLES)('gives the %s role its own HTTP port, all interfaces and info logging', (role) => {
    const config = loadRoleConfig(role, serverEnv);
    expect(config.http).toEqual({ host: '0.0.0.0', port: DEFAULT_HTTP_PORTS[role], limits: DEFAULT_HTTP_LIMITS });
    expect(config.logLevel).toBe('info');
    expect(config.kafka).toEqual({ brokers: ['kafka-1:9092', 'kafka-2:9092'], clientId: `lanner-${role}`, namespace: '' });
    expect(config.databaseUrl).toBe(serverEnv.DATABASE_URL);
  });

  it('uses ports 8080 to 8085 for the six distributed roles, and 8080 for standalone', () => {
    expect(DEFAULT_HTTP_PORTS).toEqual({
      api: 8080,
      executor: 8081,
      controller: 8082,
      worker: 8083,
      scheduler: 8084,
      indexer: 8085,
      standalone: 8080,
    });
  });

  it('starts standalone on loopback with its data under ./.lanner', () => {
    const config = loadRoleConfig('standalone', {});
    expect(config.http).toEqual({ host: '127.0.0.1', port: 8080, limits: DEFAULT_HTTP_LIMITS });
    expect(config.dataDir).toBe(resolve('.lanner'));
    expect(config.storage).toEqual({ kind: 'local', root: join(resolve('.lanner'), 'storage') });
    expect(config.embeddedDatabasePort).toBe(54329);
    expect(config.grpc).toEqual({ host: '127.0.0.1', port: 9090 });
    expect(config.workerSlots).toBe(Math.min(1024, 8 * availableParallelism()));
    expect(config.timerIntervalMs).toBe(1000);
  });

  it('serves workers on gRPC port 9090 on all interfaces, refusing anonymous workers unless allowed', () => {
    const config = loadRoleConfig('controller', serverEnv);
    expect(config.grpc).toEqual({ host: '0.0.0.0', port: 9090, tls: { clientAuth: 'NONE' } });
    expect(config.allowAnonymousWorkers).toBe(false);
    expect(config.workerAuth).toEqual({
      signingKey: serverEnv.LANNER_JWT_SIGNING_KEY,
      accessTokenTtlS: 300,
      refreshTokenTtlS: 604800,
    });
    expect(config.streamRecycleAgeS).toBe(1800);
    expect(config.heapGrowingPercent).toBe(200);
    expect(loadRoleConfig('controller', { ...serverEnv, LANNER_ALLOW_ANONYMOUS_WORKERS: 'true' }).allowAnonymousWorkers).toBe(
      true,
    );
    expect(loadRoleConfig('controller', { ...serverEnv, LANNER_HEAP_GROWING_PERCENT: '0' }).heapGrowingPercent).toBe(0);
  });

  it('requires the api bootstrap admin token to be at least 32 characters, without printing it', () => {
    expect(() => loadRoleConfig('api', { ...serverEnv, LANNER_ADMIN_TOKEN: 'short-secret' })).toThrow(
      'LANNER_ADMIN_TOKEN: expected at least 32 characters',
    );
    expect(() => loadRoleConfig('api', { ...serverEnv, LANNER_ADMIN_TOKEN: 'short-secret' })).not.toThrow(/short-secret/);
  });

  it('refuses a worker JWT signing key shorter than 32 bytes, without printing it', () => {
    const attempt = () => loadRoleConfig('controller', { ...serverEnv, LANNER_JWT_SIGNING_KEY: 'too-short-signing-key' });
    expect(attempt).toThrow('LANNER_JWT_SIGNING_KEY: expected at least 32 bytes');
    expect(attempt).not.toThrow(/too-short-signing-key/);
  });

  it('gives a worker anonymous, plaintext, static defaults with credentials under its data directory', () => {
    const config = loadRoleConfig('worker', {
      LANNER_WORKER_CONTROLLERS: 'controller-0:9090',
      LANNER_WORKER_DATA_DIR: '/var/lib/lanner',
    });
    expect(config.auth).toEqual({
      registrationToken: undefined,
      credentialsPath: '/var/lib/lanner/credentials.json',
      refreshBufferS: 60,
    });
    expect(config.discovery).toEqual({ mode: 'STATIC', refreshS: 30 });
    expect(config.tls).toEqual({
      enabled: false,
      caFile: undefined,
      certFile: undefined,
      keyFile: undefined,
      authority: undefined,
    });
  });

  it('reads S3 internal storage for a worker', () => {
    const config = loadRoleConfig('worker', {
      LANNER_WORKER_CONTROLLERS: 'c:1',
      LANNER_STORAGE_TYPE: 's3',
      LANNER_STORAGE_S3_BUCKET: 'flows-files',
      LANNER_STORAGE_S3_ENDPOINT: 'http://127.0.0.1:8333',
      LANNER_STORAGE_S3_PATH_STYLE: 'true',
    });
    expect(config.storage).toEqual({
      kind: 's3',
      bucket: 'flows-files',
      endpoint: 'http://127.0.0.1:8333',
      region: 'us-east-1',
      forcePathStyle: true,
    });
  });

  it('reads the worker controller list', () => {
    const config = loadRoleConfig('worker', { LANNER_WORKER_CONTROLLERS: 'controller-0:9090,[::1]:9091' });
    expect(config.http.port).toBe(8083);
    expect(config.slots).toBe(Math.min(1024, 8 * availableParallelism()));
    expect(config.dataDir).toBe(resolve('.lanner-worker'));
    expect(config.storage).toEqual({ kind: 'local', root: join(resolve('.lanner-worker'), 'storage') });
    expect(config.controllers).toEqual([
      { host: 'controller-0', port: 9090 },
      { host: '::1', port: 9091 },
    ]);
  });

  it('takes a set variable over the default, and treats an empty one as unset', () => {
    const config = loadRoleConfig('api', {
      ...serverEnv,
      LANNER_HTTP_PORT: '9000',
      LANNER_LOG_LEVEL: '',
      LANNER_READY_TIMEOUT_MS: '500',
    });
    expect(config.http.port).toBe(9000);
    expect(config.logLevel).toBe('info');
    expect(config.readyTimeoutMs).toBe(500);
  });
});
