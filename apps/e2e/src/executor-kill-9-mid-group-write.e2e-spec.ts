import { Client } from 'pg';
import { requiredEnv } from '@lanner/testing';
import { problemsOfThreeSteps, threeStepsFlow, THREE_STEPS_FLOW_ID } from './harness/three-steps';
import { readClusterState } from './harness/cluster-state';
import { runDatabaseUrl } from './harness/database';
import { describeExecution, type Execution, scenario, stateOf, TERMINAL_STATES, delay } from './harness/scenario';

// The executor applies a partition's events in batches and stores every execution
// they changed in one group write, before it commits their offsets. Here it is
// SIGKILLed inside such a write for real: this spec holds a lock on `task_runs` in
// the cluster's own database while executions run, so the executor's next group
// write waits in PostgreSQL, and the executor is killed there. Its write never
// lands (the dead backend is terminated), its jobs may have been produced, its
// offsets are not committed: the restarted executor applies those events again.
// Every execution still ends SUCCESS with each task run run exactly once.
const NAMESPACE = 'e2e.executor.kill9.group';
const FLOW_ID = THREE_STEPS_FLOW_ID;
const FLOW = threeStepsFlow(NAMESPACE);
const EXECUTIONS = 40;
const SUBMIT_BATCH = 10;
/** A new executor waits for Kafka to drop the dead member (session timeout) before it owns the partitions again. */
const WAIT_MS = 120_000;
const ALL_ENDED_TIMEOUT_MS = 240_000;

const terminal = (execution: Execution): boolean => (TERMINAL_STATES as readonly string[]).includes(stateOf(execution));

describe('SIGKILL of the executor inside a group write', () => {
  const { lanner, cluster } = scenario();
  const state = readClusterState();
  const databaseUrl = runDatabaseUrl(requiredEnv('DATABASE_URL', 'the e2e suite'), state.databaseName);
  let holder: Client | undefined;
  let observer: Client | undefined;
  const ids: string[] = [];

  beforeAll(async () => {
    await lanner.createFlow(FLOW);
    observer = new Client({ connectionString: databaseUrl });
    await observer.connect();
  });

  afterAll(async () => {
    await release();
    await observer?.end();
    // The cluster is shared: the next specs need an executor, and no leftover work.
    await cluster.ensureRunning('executor');
    for (const id of ids) await lanner.kill(id).catch(() => undefined);
  }, 200_000);

  async function release(): Promise<void> {
    const client = holder;
    holder = undefined;
    if (client === undefined) return;
    await client.query('ROLLBACK').catch(() => undefined);
    await client.end().catch(() => undefined);
  }

  it('loses nothing and runs nothing twice', async () => {
    for (let start = 0; start < EXECUTIONS; start += SUBMIT_BATCH) {
      const batch = await Promise.all(Array.from({ length: SUBMIT_BATCH }, () => lanner.execute(NAMESPACE, FLOW_ID)));
      ids.push(...batch.map((execution) => execution.id));
    }
    // Every write of task runs waits from now on (reads go on), until released.
    holder = new Client({ connectionString: databaseUrl });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE task_runs IN SHARE ROW EXCLUSIVE MODE');

    // The executor's group write (one statement for every execution of its batch) waits on the lock.
    let waiting: { pid: number; query: string }[] = [];
    const deadline = Date.now() + WAIT_MS;
    while (waiting.length === 0 && Date.now() < deadline) {
      await delay(250);
      const rows = await (observer as Client).query<{ pid: number; query: string }>(
        `SELECT a.pid, a.query FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE NOT l.granted AND l.relation = 'task_runs'::regclass`,
      );
      waiting = rows.rows.filter((row) => row.query.includes('UPDATE executions e SET'));
    }
    expect(waiting.length).toBeGreaterThan(0);
    const ended = await (observer as Client).query<{ count: string }>(
      "SELECT count(*) FROM executions WHERE namespace = $1 AND state = 'SUCCESS'",
      [NAMESPACE],
    );
    // Genuinely in flight: most had not ended.
    expect(Number(ended.rows[0]?.count)).toBeLessThan(EXECUTIONS);

    const restart = await cluster.restart('executor', { signal: 'SIGKILL', downtimeMs: 500 });
    expect(restart.exit.signal).toBe('SIGKILL');
    // PostgreSQL notices the client is gone only once the lock wait ends: end the write that was cut off.
    await (observer as Client).query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [
      waiting.map((row) => row.pid),
    ]);
    await release();

    const views = new Map<string, Execution>();
    const until = Date.now() + ALL_ENDED_TIMEOUT_MS;
    while (views.size < ids.length && Date.now() < until) {
      for (const id of ids.filter((candidate) => !views.has(candidate))) {
        const view = await lanner.execution(id);
        if (terminal(view)) views.set(id, view);
      }
      if (views.size < ids.length) await delay(1000);
    }
    expect(views.size).toBe(ids.length);
    const wrong = [...views.values()]
      .map((execution) => ({ execution, problems: problemsOfThreeSteps(execution) }))
      .filter(({ problems }) => problems.length > 0)
      .map(({ execution, problems }) => `${problems.join('; ')}\n${describeExecution(execution)}`);
    expect(wrong).toEqual([]);
  }, 400_000);
});
