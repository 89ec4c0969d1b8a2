// Two executor processes (`lanner server executor`, as users run them) on one
// fresh database and the real Kafka. The one holding the liveness-coordinator
// lease is stopped with SIGSTOP past the missed-heartbeat timeout and the grace
// period: the other takes the lease over and declares it NOT_RUNNING. Resumed,
// the stopped one acts on nothing (no coordinator write, the lease and its row
// stay as the other left them) and stops itself with exit code 75.

import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { applyMigrations } from '@lanner/repository';
import { eventually, freePort, requiredEnv } from '@lanner/testing';
import { Client } from 'pg';

const WORKSPACE = resolve(__dirname, '../../../..');
const run = `${process.pid}_${randomBytes(3).toString('hex')}`;
const logDir = mkdtempSync(join(tmpdir(), 'lanner-two-executors-'));
/** The executor compiles its TypeScript at start, on cores shared with other specs. */
const START_WAIT_MS = 90_000;
/** Lease (10 s) + missed-heartbeat timeout (10 s) + grace (30 s), with room for a loaded machine. */
const DECLARED_WAIT_MS = 90_000;
/** Lines only a coordinator that acts writes. */
const COORDINATOR_ACTIONS = [
  'this executor is the liveness coordinator',
  'service instance disconnected',
  'service instance not running',
  'reported lost',
  'stale liveness rows purged',
];

class ExecutorProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  private readonly logFile: string;
  constructor(
    readonly name: string,
    readonly port: number,
    env: NodeJS.ProcessEnv,
  ) {
    this.logFile = join(logDir, `${name}.log`);
    const output = openSync(this.logFile, 'a');
    try {
      this.child = spawn(process.execPath, [join(WORKSPACE, 'bin/lanner.js'), 'server', 'executor'], {
        cwd: WORKSPACE,
        env: { ...env, LANNER_HTTP_PORT: String(port), LANNER_HTTP_HOST: '127.0.0.1' },
        stdio: ['ignore', output, output],
      });
    } finally {
      closeSync(output);
    }
    this.exited = new Promise((done) => this.child.once('exit', (code) => done(code)));
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  async ready(): Promise<void> {
    const deadline = Date.now() + START_WAIT_MS;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`${this.name} exited:\n${this.log()}`);
      const answer = await fetch(`http://127.0.0.1:${this.port}/health/ready`).catch(() => undefined);
      if (answer?.status === 200) return;
      await new Promise((done) => setTimeout(done, 300));
    }
    throw new Error(`${this.name} not ready:\n${this.log()}`);
  }

  log(): string {
    try {
      return readFileSync(this.logFile, 'utf8');
    } catch {
      return '';
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    try {
      process.kill(this.pid, 'SIGCONT');
    } catch {
      // gone
    }
    this.child.kill('SIGKILL');
    await this.exited;
  }
}

async function onServer(sql: string): Promise<void> {
  const admin = new Client({ connectionString: requiredEnv('DATABASE_URL') });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

interface InstanceRow {
  id: string;
  state: string;
  state_changed_at: Date;
  pid: string | null;
}

describe('two executor processes, the coordinator stopped with SIGSTOP past its lease and the grace period', () => {
  const name = `lanner_two_executors_${run}`;
  let db: Client;
  const executors: ExecutorProcess[] = [];

  const instances = async (): Promise<InstanceRow[]> =>
    (
      await db.query<InstanceRow>(
        `SELECT id, state::text AS state, state_changed_at, metadata->>'pid' AS pid FROM service_instances WHERE role = 'EXECUTOR'`,
      )
    ).rows;
  const instanceOf = async (executor: ExecutorProcess) =>
    (await instances()).find((row) => row.pid === String(executor.pid) && row.state !== 'TERMINATED');
  const leaseHolder = async (): Promise<string | undefined> =>
    (await db.query<{ holder: string }>(`SELECT holder FROM cluster_locks WHERE name = 'liveness-coordinator'`)).rows[0]?.holder;

  beforeAll(
    async () => {
      await onServer(`CREATE DATABASE ${name}`);
      const url = new URL(requiredEnv('DATABASE_URL'));
      url.pathname = `/${name}`;
      await applyMigrations(url.toString());
      db = new Client({ connectionString: url.toString() });
      await db.connect();
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATABASE_URL: url.toString(),
        LANNER_KAFKA_NAMESPACE: `spec-executors-${run}.`,
        LANNER_LOG_LEVEL: 'info',
        KAFKAJS_NO_PARTITIONER_WARNING: '1',
      };
      // The first one starts alone, so it is the coordinator.
      executors.push(new ExecutorProcess('executor-a', await freePort(), env));
      await executors[0].ready();
      executors.push(new ExecutorProcess('executor-b', await freePort(), env));
      await executors[1].ready();
    },
    2 * START_WAIT_MS + 30_000,
  );

  afterAll(async () => {
    await Promise.all(executors.map((executor) => executor.stop()));
    await db?.end();
    await onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  it(
    'resumed, it acts on nothing and stops itself with exit code 75; the other executor took over',
    async () => {
      const [paused, other] = executors;
      const pausedId = (await eventually('executor-a registered', () => instanceOf(paused), 30_000)).id;
      const otherId = (await eventually('executor-b registered', () => instanceOf(other), 30_000)).id;
      await eventually(
        'executor-a to hold the lease',
        async () => ((await leaseHolder()) === pausedId ? true : undefined),
        30_000,
      );

      process.kill(paused.pid, 'SIGSTOP');
      let logAtResume: number;
      let declared: InstanceRow;
      try {
        await eventually(
          'executor-b to take the lease over',
          async () => ((await leaseHolder()) === otherId ? true : undefined),
          60_000,
        );
        declared = await eventually(
          'executor-a to be declared NOT_RUNNING',
          async () => {
            const row = (await instances()).find((instance) => instance.id === pausedId);
            return row?.state === 'NOT_RUNNING' ? row : undefined;
          },
          { waitMs: DECLARED_WAIT_MS, pollMs: 1_000 },
        );
        logAtResume = paused.log().length;
      } finally {
        process.kill(paused.pid, 'SIGCONT');
      }

      // Its first heartbeat after the resume finds it NOT_RUNNING: it stops at once, saying why.
      const resumedAt = Date.now();
      expect(await paused.exited).toBe(75);
      expect(Date.now() - resumedAt).toBeLessThan(10_000);
      const afterResume = paused.log().slice(logAtResume);
      const reason = afterResume.split('\n').find((line) => line.includes('declared NOT_RUNNING'));
      expect(JSON.parse(reason ?? '{}')).toMatchObject({ level: 'error', instanceId: pausedId, exitCode: 75 });
      // No coordinator action after the resume, nor any graceful-shutdown write of its state.
      for (const action of COORDINATOR_ACTIONS) expect(afterResume).not.toContain(action);
      expect(afterResume).not.toContain('service instance terminat');

      // The database is as the other executor left it: the lease is its, the stopped one's row NOT_RUNNING, unchanged.
      expect(await leaseHolder()).toBe(otherId);
      const row = (await instances()).find((instance) => instance.id === pausedId);
      expect(row).toMatchObject({ state: 'NOT_RUNNING', state_changed_at: declared.state_changed_at });
      expect((await instances()).find((instance) => instance.id === otherId)?.state).toBe('RUNNING');
      expect(other.child.exitCode).toBeNull();
      expect(other.log()).toContain('this executor is the liveness coordinator');
    },
    4 * DECLARED_WAIT_MS,
  );
});
