import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { Kafka, logLevel } from 'kafkajs';
import {
  durationFromMillis,
  frameSizeChannelOptions,
  MAX_FRAME_BYTES,
  PROTOCOL_VERSION,
  WorkerControllerServiceService,
  type ControllerFrame,
  type WorkerControllerServiceServer,
  type WorkerFrame,
} from '@lanner/frames';
import { pause } from '@lanner/testing';
import {
  freePort,
  requiredEnv,
  startLanner as startLannerProcess,
  stopLanner,
  workspaceRoot,
  type LannerProcess,
} from './testing/lanner-process';

// Each role runs as users run it: `node bin/lanner.js server <role>`, a separate
// process against the real Kafka and PostgreSQL, observed only through its
// exit code, its output and its health endpoints.
// Generous: a role started beside the rest of the integration tests on a 2-core machine can take a while.
const STARTUP_DEADLINE_MS = 90_000;

const started: LannerProcess[] = [];

function startLanner(role: string, env: NodeJS.ProcessEnv, cwd = workspaceRoot, flags: string[] = []): LannerProcess {
  const process_ = startLannerProcess(role, env, { cwd, flags });
  started.push(process_);
  return process_;
}

function isRunning(lanner: LannerProcess): boolean {
  return lanner.child.exitCode === null && lanner.child.signalCode === null;
}

interface HttpAnswer {
  status: number;
  body: string;
}

function httpGet(port: number, path: string): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const request = get({ host: '127.0.0.1', port, path, timeout: 5000 }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', reject);
  });
}

/** Polls until the endpoint answers `status`; fails early, with the process output, when the process exits. */
async function waitForStatus(lanner: LannerProcess, port: number, path: string, status: number): Promise<HttpAnswer> {
  const deadline = Date.now() + STARTUP_DEADLINE_MS;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (!isRunning(lanner)) {
      throw new Error(
        `process exited before ${path} answered ${status}\nstdout:\n${lanner.stdout()}\nstderr:\n${lanner.stderr()}`,
      );
    }
    try {
      const answer = await httpGet(port, path);
      if (answer.status === status) return answer;
      last = `${answer.status} ${answer.body}`;
    } catch (error) {
      last = String(error);
    }
    await pause(250);
  }
  throw new Error(`${path} did not answer ${status} (last: ${last})\nstdout:\n${lanner.stdout()}\nstderr:\n${lanner.stderr()}`);
}

let serviceEnv: { DATABASE_URL: string; KAFKA_BROKERS: string };
// What each server role needs beyond the shared services (see docs/CONFIGURATION.md).
const roleSpecificEnv: Record<string, NodeJS.ProcessEnv> = {
  api: { LANNER_ADMIN_TOKEN: 'integration-spec-admin-token-0123456789abcdef' },
  controller: { LANNER_GRPC_PORT: '0', LANNER_JWT_SIGNING_KEY: 'integration-spec-jwt-signing-key-0123456789abcdef' },
};
let controllerStandIn: grpc.Server;
let controllerPort: number;

/** Welcomes any worker that says Hello and sends it nothing else: the worker's readiness is "a controller accepted my stream". */
function welcomeEveryWorker(call: grpc.ServerDuplexStream<WorkerFrame, ControllerFrame>): void {
  call.on('data', (frame: WorkerFrame) => {
    if (frame.frame?.$case !== 'hello') return;
    call.write({
      frame: {
        $case: 'welcome',
        value: {
          workerId: 'roles-spec-worker',
          workerGroupId: 'default',
          subscriptions: [],
          heartbeatInterval: durationFromMillis(3000),
          protocolVersion: { ...PROTOCOL_VERSION },
          maxFrameBytes: MAX_FRAME_BYTES,
          controllerId: 'roles-spec-controller',
        },
      },
    });
  });
  call.on('end', () => call.end());
  call.on('error', () => undefined);
}
const temporaryDirs: string[] = [];

beforeAll(async () => {
  serviceEnv = { DATABASE_URL: requiredEnv('DATABASE_URL'), KAFKA_BROKERS: requiredEnv('KAFKA_BROKERS') };
  // kafkajs loads its protocol modules on first use; Jest refuses such late requires inside
  // concurrent tests, so the admin client used by a spec below is exercised once here.
  const probe = new Kafka({
    clientId: 'roles-spec-probe',
    brokers: serviceEnv.KAFKA_BROKERS.split(','),
    logLevel: logLevel.NOTHING,
  }).admin();
  await probe.connect();
  await probe.describeGroups(['roles-spec-warm-up']);
  await probe.disconnect();
  // A gRPC peer where the worker expects a controller (the real controller role needs the queue and more).
  controllerStandIn = new grpc.Server(frameSizeChannelOptions());
  const implementation: WorkerControllerServiceServer = { connect: welcomeEveryWorker };
  controllerStandIn.addService(WorkerControllerServiceService, implementation);
  controllerPort = await new Promise<number>((resolve, reject) =>
    controllerStandIn.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) =>
      error ? reject(error) : resolve(port),
    ),
  );
});

afterAll(async () => {
  // SIGTERM first so that a standalone stops its PostgreSQL; SIGKILL whatever did not stop.
  const running = started.filter(isRunning);
  for (const lanner of running) lanner.child.kill('SIGTERM');
  await Promise.all(
    running.map((lanner) =>
      Promise.race([lanner.exited, new Promise((resolve) => setTimeout(resolve, 15_000))]).then(() => {
        if (isRunning(lanner)) lanner.child.kill('SIGKILL');
      }),
    ),
  );
  controllerStandIn?.forceShutdown();
  for (const dir of temporaryDirs) rmSync(dir, { recursive: true, force: true });
});

describe('each distributed role as its own process', () => {
  const roles = ['api', 'executor', 'controller', 'scheduler', 'indexer', 'worker'] as const;

  it.concurrent.each(roles)(
    '%s becomes live and ready on real services, then exits 0 on SIGTERM',
    async (role) => {
      const port = await freePort();
      const env: NodeJS.ProcessEnv =
        role === 'worker'
          ? { LANNER_HTTP_PORT: String(port), LANNER_WORKER_CONTROLLERS: `127.0.0.1:${controllerPort}` }
          : { ...serviceEnv, ...roleSpecificEnv[role], LANNER_HTTP_PORT: String(port) };
      const lanner = startLanner(role, env);

      await waitForStatus(lanner, port, '/health/live', 200);
      const ready = await waitForStatus(lanner, port, '/health/ready', 200);
      const dependencies = Object.keys((JSON.parse(ready.body) as { details: Record<string, unknown> }).details);
      expect(dependencies.sort()).toEqual(role === 'worker' ? ['controllers'] : ['database', 'queue']);

      const metrics = await httpGet(port, '/metrics');
      expect(metrics.status).toBe(200);
      expect(metrics.body).toMatch(new RegExp(`^lanner_process_resident_memory_bytes\\{role="${role}"\\} \\d+`, 'm'));

      expect(await stopLanner(lanner)).toEqual({ code: 0, signal: null });
      expect(lanner.stdout()).toContain(`lanner ${role} stopped`);
    },
    90_000,
  );

  it.concurrent(
    'runs the indexer inside the api process unless started with --no-indexer',
    async () => {
      const members = async (namespace: string) => {
        const admin = new Kafka({
          clientId: 'roles-spec-probe',
          brokers: serviceEnv.KAFKA_BROKERS.split(','),
          logLevel: logLevel.NOTHING,
        }).admin();
        await admin.connect();
        try {
          const { groups } = await admin.describeGroups([`${namespace}lanner-indexer`]);
          return groups[0]?.members.length ?? 0;
        } finally {
          await admin.disconnect();
        }
      };
      const start = async (flags: string[]) => {
        const port = await freePort();
        const namespace = `roles-spec-${process.pid}-${port}.`;
        const lanner = startLanner(
          'api',
          { ...serviceEnv, ...roleSpecificEnv.api, LANNER_HTTP_PORT: String(port), LANNER_KAFKA_NAMESPACE: namespace },
          workspaceRoot,
          flags,
        );
        await waitForStatus(lanner, port, '/health/ready', 200);
        return { lanner, namespace };
      };

      const embedded = await start([]);
      const deadline = Date.now() + 30_000;
      while ((await members(embedded.namespace)) !== 1 && Date.now() < deadline) await pause(250);
      expect(await members(embedded.namespace)).toBe(1);
      expect(await stopLanner(embedded.lanner)).toEqual({ code: 0, signal: null });

      const split = await start(['--no-indexer']);
      // Ready means every consumer of the process has joined its group: an indexer would be a member by now.
      expect(await members(split.namespace)).toBe(0);
      expect(await stopLanner(split.lanner)).toEqual({ code: 0, signal: null });
    },
    120_000,
  );

  it.concurrent(
    'refuses to start on an invalid setup file with exit code 78, one line per problem and its path',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'lanner-setup-'));
      temporaryDirs.push(dir);
      const file = join(dir, 'setup.yaml');
      writeFileSync(
        file,
        'setup:\n  workerQueues:\n    - id: Not_A_Label\n      tags: []\n  workerGroups:\n    - id: etl-team\n      subscriptions:\n        - { workerQueueId: etl }\n',
      );
      const port = await freePort();
      const lanner = startLanner('api', {
        ...serviceEnv,
        ...roleSpecificEnv.api,
        LANNER_HTTP_PORT: String(port),
        LANNER_SETUP_FILE: file,
        LANNER_KAFKA_NAMESPACE: `roles-spec-setup-${port}.`,
      });
      const exit = await lanner.exited;
      expect(exit.code).toBe(78);
      expect(lanner.stderr()).toContain(`lanner api: the declarative setup in ${file} is invalid, nothing was written`);
      expect(lanner.stderr()).toMatch(/^lanner api: setup\.workerQueues\[0\]\.id .+/m);
      expect(lanner.stderr()).toMatch(/^lanner api: setup\.workerGroups\[0\]\.subscriptions\[0\].*'etl'/m);
      expect(lanner.stderr()).not.toMatch(/^\s+at /m);
    },
    90_000,
  );

  it.concurrent(
    'refuses to start on a bad variable, naming it without a stack trace',
    async () => {
      const lanner = startLanner('api', { ...serviceEnv, ...roleSpecificEnv.api, LANNER_HTTP_PORT: 'abc' });
      const exit = await lanner.exited;
      expect(exit.code).not.toBe(0);
      expect(lanner.stderr()).toContain('LANNER_HTTP_PORT: expected an integer 1-65535, got "abc"');
      expect(lanner.stderr()).not.toMatch(/^\s+at /m);
    },
    90_000,
  );

  it.concurrent(
    'exits 1 when its HTTP port is taken, saying so in one log line without a stack trace',
    async () => {
      const port = await freePort();
      const squatter = createServer();
      await new Promise<void>((resolve, reject) => {
        squatter.once('error', reject);
        squatter.listen(port, '0.0.0.0', resolve);
      });
      try {
        const lanner = startLanner('indexer', {
          ...serviceEnv,
          LANNER_HTTP_PORT: String(port),
          LANNER_KAFKA_NAMESPACE: `roles-spec-taken-${port}.`,
        });
        const exit = await lanner.exited;
        expect(exit.code).toBe(1);
        const fatal = lanner
          .stdout()
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { level: string; msg: string; code?: string })
          .filter((entry) => entry.level === 'fatal');
        expect(fatal).toHaveLength(1);
        expect(fatal[0].msg).toMatch(
          new RegExp(`^lanner indexer failed to start: listen EADDRINUSE: address already in use .*${port}$`),
        );
        expect(fatal[0].code).toBe('EADDRINUSE');
        expect(lanner.output()).not.toMatch(/^\s+at /m);
        expect(lanner.output()).not.toContain('"stack"');
      } finally {
        await new Promise((resolve) => squatter.close(resolve));
      }
    },
    90_000,
  );

  it.concurrent(
    'answers 503 on /health/ready naming the database when its port is closed, and stays live',
    async () => {
      const [port, closedPort] = await Promise.all([freePort(), freePort()]);
      const unreachable = new URL(serviceEnv.DATABASE_URL);
      unreachable.hostname = '127.0.0.1';
      unreachable.port = String(closedPort);
      const lanner = startLanner('executor', {
        ...serviceEnv,
        DATABASE_URL: unreachable.toString(),
        LANNER_HTTP_PORT: String(port),
      });

      await waitForStatus(lanner, port, '/health/live', 200);
      const notReady = await waitForStatus(lanner, port, '/health/ready', 503);
      const body = JSON.parse(notReady.body) as { error: Record<string, { status: string; message?: string }> };
      expect(Object.keys(body.error)).toEqual(['database']);
      expect(body.error['database'].status).toBe('down');
      expect(notReady.body).not.toContain('postgresql://');
      expect(notReady.body).not.toMatch(/\bat .*\.ts:\d+/);

      expect(await stopLanner(lanner)).toEqual({ code: 0, signal: null });
    },
    90_000,
  );
});

describe('standalone', () => {
  it('starts every role on embedded PostgreSQL, keeps the admin token and the first admin password private, and reuses its data after a restart', async () => {
    // Mode 0700, as `mktemp -d` makes it: as root, the `postgres` user that PostgreSQL runs as cannot
    // pass, so the cluster goes to the system folder the docs name for this data dir.
    const workDir = mkdtempSync(join(tmpdir(), 'lanner-standalone-'));
    temporaryDirs.push(workDir);
    const dataDir = join(workDir, '.lanner');
    const asRoot = process.getuid?.() === 0;
    const clusterHome = join('/var/lib/lanner', `standalone-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`);
    if (asRoot) temporaryDirs.push(clusterHome);
    const clusterDir = asRoot ? join(clusterHome, 'postgres') : join(dataDir, 'postgres');
    const [httpPort, databasePort] = await Promise.all([freePort(), freePort()]);
    // gRPC port 0: standalone picks a free one for its controller and tells its local worker.
    const env = { LANNER_HTTP_PORT: String(httpPort), LANNER_EMBEDDED_DB_PORT: String(databasePort), LANNER_GRPC_PORT: '0' };
    const tokenFile = join(workDir, '.lanner', 'admin-token');

    const first = startLanner('standalone', env, workDir);
    await waitForStatus(first, httpPort, '/health/ready', 200);
    expect(first.stdout()).toContain(`API:         http://127.0.0.1:${httpPort}/api/v1`);
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect(token.length).toBeGreaterThanOrEqual(43); // 256 bits in base64url
    expect(first.stdout()).toContain(`Admin token: ${token}`);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    // The first admin user: its password shown once and kept owner-only, and it logs in.
    const passwordFile = join(dataDir, 'admin-password');
    const password = readFileSync(passwordFile, 'utf8').trim();
    expect(first.stdout()).toContain(`Admin user:  admin / ${password}`);
    expect(statSync(passwordFile).mode & 0o777).toBe(0o600);
    const login = await fetch(`http://127.0.0.1:${httpPort}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password }),
    });
    expect(login.status).toBe(200);
    expect(((await login.json()) as { user: { instanceAdmin: boolean } }).user.instanceAdmin).toBe(true);
    expect(first.stdout()).toContain('embedded PostgreSQL initialised and started');
    expect(existsSync(join(clusterDir, 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(dataDir, 'postgres-password'))).toBe(true);
    expect(await stopLanner(first)).toEqual({ code: 0, signal: null });

    const second = startLanner('standalone', env, workDir);
    await waitForStatus(second, httpPort, '/health/ready', 200);
    expect(second.stdout()).toContain('embedded PostgreSQL started, reusing its data');
    // The schema migrated by the first start is still there.
    expect(second.stdout()).toContain('schema up to date');
    expect(second.stdout()).not.toContain(token);
    expect(second.stdout()).not.toContain(password);
    expect(readFileSync(tokenFile, 'utf8').trim()).toBe(token);
    expect(await stopLanner(second)).toEqual({ code: 0, signal: null });
  }, 240_000);
});
