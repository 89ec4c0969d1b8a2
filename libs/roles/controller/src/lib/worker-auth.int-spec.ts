import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { Logger, type LoggerService } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { generateSecretToken, hashToken, signingKeyFrom, WeakSigningKey, WorkerAccessTokens } from '@lanner/auth';
import { WorkerAuthServiceClient, WorkerAuthServiceService, type Credentials } from '@lanner/frames';
import { applyMigrations, openRepositories, type Repositories } from '@lanner/repository';
import { MetricsRegistry, REPOSITORIES } from '@lanner/runtime';
import { requiredEnv } from '@lanner/testing';
import { Client } from 'pg';
import { CLOCK } from './clock';
import { CONTROLLER_SETTINGS, type ControllerSettings } from './controller-settings';
import { systemClock } from './system-clock';
import { WorkerAuthGrpc } from './worker-auth.grpc';

// WorkerAuthService as workers meet it: the controller's implementation on a
// grpc-js server of its own (loopback, free port), a real grpc-js client, and
// a PostgreSQL database of this spec's own.

const SIGNING_KEY = 'worker-auth-spec-signing-key-0123456789abcdef';
const run = randomBytes(4).toString('hex');

function settings(signingKey = SIGNING_KEY): ControllerSettings {
  return {
    grpc: { host: '127.0.0.1', port: 0 },
    allowAnonymousWorkers: false,
    workerAuth: { signingKey, accessTokenTtlS: 300, refreshTokenTtlS: 604_800 },
    streamRecycleAgeS: 0,
  };
}

async function createDatabase(name: string): Promise<string> {
  const serverUrl = requiredEnv('DATABASE_URL');
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    // The name is generated in this file (letters, digits, underscores): safe to splice.
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  await applyMigrations(url.toString());
  return url.toString();
}

async function dropDatabase(name: string): Promise<void> {
  const admin = new Client({ connectionString: requiredEnv('DATABASE_URL') });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/** Every log line the controller writes during the spec, to check no token value ever appears in one. */
class CapturedLogs implements LoggerService {
  readonly lines: string[] = [];
  private record(level: string, message: unknown, rest: unknown[]): void {
    this.lines.push(JSON.stringify({ level, message, rest }));
  }
  log(message: unknown, ...rest: unknown[]) {
    this.record('log', message, rest);
  }
  error(message: unknown, ...rest: unknown[]) {
    this.record('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]) {
    this.record('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]) {
    this.record('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]) {
    this.record('verbose', message, rest);
  }
}

/** The controller's WorkerAuthGrpc, built by Nest's injector as the controller module builds it, served on a port of its own. */
async function authFromInjector(
  repositories: Repositories,
  metrics: MetricsRegistry,
  logs: CapturedLogs,
  signingKey = SIGNING_KEY,
): Promise<WorkerAuthGrpc> {
  const module = await Test.createTestingModule({
    providers: [
      WorkerAuthGrpc,
      { provide: CONTROLLER_SETTINGS, useValue: settings(signingKey) },
      { provide: REPOSITORIES, useValue: repositories },
      { provide: MetricsRegistry, useValue: metrics },
      { provide: CLOCK, useValue: systemClock },
    ],
  })
    .setLogger(logs)
    .compile();
  return module.get(WorkerAuthGrpc);
}

async function serveAuth(
  repositories: Repositories,
  metrics: MetricsRegistry,
  logs: CapturedLogs,
): Promise<{ auth: WorkerAuthGrpc; server: grpc.Server; port: number }> {
  const auth = await authFromInjector(repositories, metrics, logs);
  const server = new grpc.Server();
  server.addService(WorkerAuthServiceService, auth.implementation());
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return { auth, server, port };
}

type CallOutcome = { ok: true; credentials: Credentials } | { ok: false; code: grpc.status; details: string };

function outcomeOf(resolve: (outcome: CallOutcome) => void) {
  return (error: grpc.ServiceError | null, credentials: Credentials) =>
    resolve(error ? { ok: false, code: error.code, details: error.details } : { ok: true, credentials });
}

class SpecWorker {
  private readonly client: WorkerAuthServiceClient;
  constructor(port: number) {
    this.client = new WorkerAuthServiceClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  }
  register(registrationToken: string, workerName = `spec-host-${run}`): Promise<CallOutcome> {
    return new Promise((resolve) => this.client.register({ registrationToken, workerName }, outcomeOf(resolve)));
  }
  refresh(refreshToken: string): Promise<CallOutcome> {
    return new Promise((resolve) => this.client.refresh({ refreshToken }, outcomeOf(resolve)));
  }
  close(): void {
    this.client.close();
  }
}

function issued(outcome: CallOutcome): Credentials {
  if (!outcome.ok) throw new Error(`expected credentials, got ${grpc.status[outcome.code]}: ${outcome.details}`);
  return outcome.credentials;
}

const REFUSED = 'the token is unknown, revoked, expired or already used; register again with a registration token';

describe('controller WorkerAuthService over gRPC', () => {
  const databaseName = `lanner_auth_spec_${run}`;
  const logs = new CapturedLogs();
  const metrics = new MetricsRegistry('controller');
  const presentedTokens: string[] = [];
  let repositories: Repositories;
  let served: { auth: WorkerAuthGrpc; server: grpc.Server; port: number };
  let worker: SpecWorker;

  async function newRegistrationToken(workerGroupId = 'gpu'): Promise<{ value: string; id: string }> {
    const value = generateSecretToken();
    presentedTokens.push(value);
    const token = await repositories.registrationTokens.create(
      workerGroupId,
      `spec-${randomBytes(3).toString('hex')}`,
      hashToken(value),
    );
    return { value, id: token.id };
  }

  const keep = (credentials: Credentials): Credentials => {
    presentedTokens.push(credentials.refreshToken, credentials.accessToken);
    return credentials;
  };

  beforeAll(async () => {
    repositories = await openRepositories(await createDatabase(databaseName));
    await repositories.workerGroups.seedReserved();
    await repositories.workerGroups.put({ id: 'gpu', name: 'GPU workers' });
    served = await serveAuth(repositories, metrics, logs);
    worker = new SpecWorker(served.port);
  });

  afterAll(async () => {
    worker?.close();
    served?.server.forceShutdown();
    await repositories?.close();
    await dropDatabase(databaseName);
    Logger.overrideLogger(new Logger());
  });

  it('registers with a valid token: credentials whose JWT verifies with the group, the server-chosen worker id and the token id', async () => {
    const registration = await newRegistrationToken();
    const before = Date.now();
    const credentials = keep(issued(await worker.register(registration.value, 'gpu-host-1')));

    expect(credentials.workerGroupId).toBe('gpu');
    expect(credentials.workerId).toMatch(/^worker-[0-9a-f-]{36}$/);
    expect(credentials.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const accessLifetime = (credentials.accessExpiresAt as Date).getTime() - before;
    expect(accessLifetime).toBeGreaterThan(290_000);
    expect(accessLifetime).toBeLessThanOrEqual(301_000);
    expect((credentials.refreshExpiresAt as Date).getTime() - before).toBeGreaterThan(604_790_000);

    const verifier = new WorkerAccessTokens(signingKeyFrom(SIGNING_KEY, 'spec'), 300);
    expect(verifier.verify(credentials.accessToken, new Date())).toEqual({
      workerId: credentials.workerId,
      workerGroupId: 'gpu',
      registrationTokenId: registration.id,
    });
    expect(served.auth.accessTokens.verify(credentials.accessToken, new Date()).workerId).toBe(credentials.workerId);

    // What an administrator sees: the worker under its group, the token's last use recorded.
    expect(await repositories.workerCredentials.findWorker(credentials.workerId)).toMatchObject({
      workerGroupId: 'gpu',
      registrationTokenId: registration.id,
      name: 'gpu-host-1',
    });
    expect((await repositories.registrationTokens.findById(registration.id))?.lastUsedAt).not.toBeNull();
  });

  it('refuses a wrong token with UNAUTHENTICATED', async () => {
    await newRegistrationToken();
    const wrong = generateSecretToken();
    presentedTokens.push(wrong);
    expect(await worker.register(wrong)).toEqual({ ok: false, code: grpc.status.UNAUTHENTICATED, details: REFUSED });
  });

  it('refuses a revoked token with UNAUTHENTICATED and the same message', async () => {
    const registration = await newRegistrationToken();
    await repositories.registrationTokens.revoke('gpu', registration.id, new Date());
    expect(await worker.register(registration.value)).toEqual({ ok: false, code: grpc.status.UNAUTHENTICATED, details: REFUSED });
  });

  it('refuses a malformed request with INVALID_ARGUMENT naming what is wrong', async () => {
    expect(await worker.register('')).toEqual({
      ok: false,
      code: grpc.status.INVALID_ARGUMENT,
      details: 'registration_token is empty',
    });
    const registration = await newRegistrationToken();
    expect(await worker.register(registration.value, 'h'.repeat(300))).toEqual({
      ok: false,
      code: grpc.status.INVALID_ARGUMENT,
      details: 'worker_name is 300 characters long; at most 255 are allowed',
    });
    expect(await worker.refresh('')).toEqual({
      ok: false,
      code: grpc.status.INVALID_ARGUMENT,
      details: 'refresh_token is empty',
    });
  });

  it('rotates on Refresh: same worker, new tokens, and the old refresh token is spent', async () => {
    const registration = await newRegistrationToken();
    const first = keep(issued(await worker.register(registration.value)));
    const second = keep(issued(await worker.refresh(first.refreshToken)));

    expect(second.workerId).toBe(first.workerId);
    expect(second.workerGroupId).toBe('gpu');
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(served.auth.accessTokens.verify(second.accessToken, new Date())).toEqual({
      workerId: first.workerId,
      workerGroupId: 'gpu',
      registrationTokenId: registration.id,
    });
    const third = keep(issued(await worker.refresh(second.refreshToken)));
    expect(third.workerId).toBe(first.workerId);
    expect(await worker.refresh(first.refreshToken)).toEqual({ ok: false, code: grpc.status.UNAUTHENTICATED, details: REFUSED });
  });

  it('treats a reused refresh token as theft: UNAUTHENTICATED, and the whole family is dead, newest token included', async () => {
    const registration = await newRegistrationToken();
    const first = keep(issued(await worker.register(registration.value)));
    const second = keep(issued(await worker.refresh(first.refreshToken)));

    expect(await worker.refresh(first.refreshToken)).toEqual({ ok: false, code: grpc.status.UNAUTHENTICATED, details: REFUSED });
    expect(await worker.refresh(second.refreshToken)).toEqual({ ok: false, code: grpc.status.UNAUTHENTICATED, details: REFUSED });
    expect(logs.lines.some((line) => line.includes('its token family is revoked') && line.includes(first.workerId))).toBe(true);
  });

  it('lets exactly one of two concurrent refreshes with the same token win; the loser kills the family', async () => {
    const registration = await newRegistrationToken();
    const first = keep(issued(await worker.register(registration.value)));
    const [a, b] = await Promise.all([worker.refresh(first.refreshToken), worker.refresh(first.refreshToken)]);
    const winners = [a, b].filter((outcome) => outcome.ok);
    expect(winners).toHaveLength(1);
    expect([a, b].filter((outcome) => !outcome.ok)).toEqual([{ ok: false, code: grpc.status.UNAUTHENTICATED, details: REFUSED }]);
    const winner = keep(issued(winners[0]));
    expect(await worker.refresh(winner.refreshToken)).toMatchObject({ ok: false, code: grpc.status.UNAUTHENTICATED });
  });

  it('refuses a refresh once the registration token is revoked', async () => {
    const registration = await newRegistrationToken();
    const first = keep(issued(await worker.register(registration.value)));
    await repositories.registrationTokens.revoke('gpu', registration.id, new Date());
    expect(await worker.refresh(first.refreshToken)).toEqual({ ok: false, code: grpc.status.UNAUTHENTICATED, details: REFUSED });
  });

  it('counts outcomes in the controller metrics', async () => {
    const exposition = await metrics.render();
    expect(exposition).toMatch(
      /lanner_controller_worker_credential_requests_total\{[^}]*operation="register"[^}]*outcome="issued"[^}]*\} [1-9]/,
    );
    expect(exposition).toMatch(
      /lanner_controller_worker_credential_rejections_total\{[^}]*reason="refresh-token-reused"[^}]*\} [1-9]/,
    );
  });

  it('refuses to start with a signing key shorter than 32 bytes, naming the variable and not the value', async () => {
    const short = 'only-thirty-one-bytes-long-key!';
    expect(Buffer.byteLength(short)).toBe(31);
    const failure = await authFromInjector(repositories, metrics, new CapturedLogs(), short).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WeakSigningKey);
    expect((failure as Error).message).toBe('LANNER_JWT_SIGNING_KEY: the JWT signing key must be at least 32 bytes');
  });

  it('never writes a token value into a log line', () => {
    expect(logs.lines.length).toBeGreaterThan(0);
    for (const token of presentedTokens) {
      expect(logs.lines.filter((line) => line.includes(token))).toEqual([]);
    }
  });
});

describe('controller WorkerAuthService without its database', () => {
  const databaseName = `lanner_auth_spec_down_${run}`;
  let served: { server: grpc.Server; port: number };
  let repositories: Repositories;

  beforeAll(async () => {
    repositories = await openRepositories(await createDatabase(databaseName));
    served = await serveAuth(repositories, new MetricsRegistry('controller'), new CapturedLogs());
    // The database goes away under the running controller.
    await dropDatabase(databaseName);
  });

  afterAll(async () => {
    served?.server.forceShutdown();
    await repositories?.close().catch(() => undefined);
    Logger.overrideLogger(new Logger());
  });

  it('answers UNAVAILABLE (retry with backoff), not UNAUTHENTICATED', async () => {
    const client = new SpecWorker(served.port);
    try {
      expect(await client.register(generateSecretToken())).toEqual({
        ok: false,
        code: grpc.status.UNAVAILABLE,
        details: 'the controller cannot reach its credential store; retry with backoff',
      });
      expect(await client.refresh(generateSecretToken())).toMatchObject({ ok: false, code: grpc.status.UNAVAILABLE });
    } finally {
      client.close();
    }
  });
});
