import { ChildProcess, execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { eventually, pause } from '@lanner/testing';
import { freePort, lannerBin, requiredEnv, startLanner, workspaceRoot } from '../testing/lanner-process';

// A server role run as users run it (`node bin/lanner.js server indexer`) against
// the real PostgreSQL and Kafka: its row in service_instances, read with SQL as
// an operator would, is RUNNING with fresh heartbeats and TERMINATED after SIGTERM.

interface InstanceRow {
  id: string;
  role: string;
  state: string;
  heartbeat_at: Date;
}

// Generous: the indexer compiles its TypeScript at start, on cores shared with other specs.
const START_WAIT_MS = 45_000;

describe('a server process registers itself as a service instance', () => {
  const serverUrl = requiredEnv('DATABASE_URL');
  const brokers = requiredEnv('KAFKA_BROKERS');
  const databaseName = `lanner_liveness_${process.pid}_${randomBytes(3).toString('hex')}`;
  const databaseUrl = (() => {
    const url = new URL(serverUrl);
    url.pathname = `/${databaseName}`;
    return url.toString();
  })();
  let db: Client;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    const admin = new Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${databaseName}`);
    await admin.end();
    await promisify(execFile)(process.execPath, [lannerBin, 'db', 'migrate'], {
      cwd: workspaceRoot,
      env: { ...process.env, DATABASE_URL: databaseUrl },
    });
    db = new Client({ connectionString: databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await db?.end();
    const admin = new Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS ${databaseName}_late WITH (FORCE)`);
    await admin.end();
  });

  const rows = async (): Promise<InstanceRow[]> =>
    (await db.query<InstanceRow>('SELECT id, role::text AS role, state::text AS state, heartbeat_at FROM service_instances'))
      .rows;

  interface RunningIndexer {
    readonly pid: number;
    readonly exited: Promise<number | null>;
    output(): string;
    stop(): Promise<number | null>;
  }

  async function startIndexer(url: string): Promise<RunningIndexer> {
    const lanner = startLanner('indexer', {
      DATABASE_URL: url,
      KAFKA_BROKERS: brokers,
      LANNER_HTTP_PORT: String(await freePort()),
      LANNER_KAFKA_NAMESPACE: `liveness-${randomBytes(3).toString('hex')}.`,
    });
    const child = lanner.child;
    children.push(child);
    const exited = lanner.exited.then((exit) => exit.code);
    return {
      pid: child.pid ?? 0,
      exited,
      output: lanner.output,
      stop: () => {
        child.kill('SIGTERM');
        return exited;
      },
    };
  }

  it('is RUNNING with a heartbeat every few seconds, then TERMINATED after SIGTERM', async () => {
    const indexer = await startIndexer(databaseUrl);

    const registered = await eventually('the indexer to register', async () => (await rows())[0], START_WAIT_MS);
    expect(registered).toMatchObject({ role: 'INDEXER', state: 'RUNNING' });
    expect(registered.id).toMatch(/^indexer-/);

    // Two later heartbeats: the row keeps moving while the process lives.
    const first = registered.heartbeat_at.getTime();
    const second = await eventually(
      'a heartbeat',
      async () => {
        const [row] = await rows();
        return row.heartbeat_at.getTime() > first ? row.heartbeat_at.getTime() : undefined;
      },
      10_000,
    );
    await eventually(
      'another heartbeat',
      async () => {
        const [row] = await rows();
        return row.heartbeat_at.getTime() > second ? row : undefined;
      },
      10_000,
    );
    expect((await rows()).map((row) => row.state)).toEqual(['RUNNING']);
    // Fresh: within the 10 s after which the coordinator would call it disconnected.
    expect(Date.now() - (await rows())[0].heartbeat_at.getTime()).toBeLessThan(10_000);

    expect(await indexer.stop()).toBe(0);
    const [stopped] = await rows();
    expect(stopped).toMatchObject({ id: registered.id, role: 'INDEXER', state: 'TERMINATED' });
    expect(indexer.output()).toContain('service instance registered');
    expect(indexer.output()).not.toMatch(/postgres(ql)?:\/\//i);
  }, 90_000);

  it('keeps running while its database is missing, and registers once the database is there', async () => {
    const lateUrl = new URL(databaseUrl);
    lateUrl.pathname = `/${databaseName}_late`;
    const indexer = await startIndexer(lateUrl.toString());
    await eventually(
      'the failed heartbeat to be logged',
      async () => (indexer.output().includes('service instance heartbeat not recorded') ? true : undefined),
      START_WAIT_MS,
    );
    await pause(3_500);
    // Still up after more beats than one, and said so once, never with the database URL and its password.
    expect(indexer.output().match(/service instance heartbeat not recorded/g)).toHaveLength(1);
    expect(indexer.output()).not.toContain(lateUrl.toString());

    const admin = new Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${databaseName}_late`);
    await admin.end();
    await promisify(execFile)(process.execPath, [lannerBin, 'db', 'migrate'], {
      cwd: workspaceRoot,
      env: { ...process.env, DATABASE_URL: lateUrl.toString() },
    });

    const late = new Client({ connectionString: lateUrl.toString() });
    await late.connect();
    try {
      const row = await eventually(
        'the indexer to register',
        async () => {
          const { rows: found } = await late.query<InstanceRow>(
            'SELECT id, role::text AS role, state::text AS state, heartbeat_at FROM service_instances',
          );
          return found[0];
        },
        START_WAIT_MS,
      );
      expect(row).toMatchObject({ role: 'INDEXER', state: 'RUNNING' });
      // The log line follows the write that registered the row: wait for it rather than race it.
      await eventually(
        'the log to say heartbeats are recorded again',
        async () => (indexer.output().includes('heartbeats recorded again') ? true : undefined),
        START_WAIT_MS,
      );
      expect(await indexer.stop()).toBe(0);
      const { rows: stopped } = await late.query<InstanceRow>(
        'SELECT id, role::text AS role, state::text AS state, heartbeat_at FROM service_instances',
      );
      expect(stopped.map((instance) => instance.state)).toEqual(['TERMINATED']);
    } finally {
      await late.end();
    }
  }, 90_000);

  it('declared NOT_RUNNING while it was stopped (SIGSTOP), it stops itself on resume with exit code 75 and says why', async () => {
    const indexer = await startIndexer(databaseUrl);
    const registered = await eventually(
      'the indexer to register',
      async () => (await rows()).find((row) => row.state === 'RUNNING'),
      START_WAIT_MS,
    );
    const pid = indexer.pid;
    process.kill(pid, 'SIGSTOP');
    try {
      // What the liveness coordinator writes once the grace period of a silent instance is over.
      await db.query(`UPDATE service_instances SET state = 'NOT_RUNNING', state_changed_at = now() WHERE id = $1`, [
        registered.id,
      ]);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const exitedWithin = Date.now();
    expect(await indexer.exited).toBe(75);
    // On its first beat after the resume (every 3 s).
    expect(Date.now() - exitedWithin).toBeLessThan(10_000);
    const line = indexer
      .output()
      .split('\n')
      .find((text) => text.includes('declared NOT_RUNNING'));
    expect(line).toBeDefined();
    expect(JSON.parse(line ?? '{}')).toMatchObject({ level: 'error', instanceId: registered.id, exitCode: 75 });
    expect(line).toContain('stopping now with exit code 75');
    // It wrote nothing more about itself: the row says what the coordinator decided.
    expect((await rows()).find((row) => row.id === registered.id)?.state).toBe('NOT_RUNNING');
    expect(indexer.output()).not.toContain('service instance terminat');
  }, 90_000);
});
