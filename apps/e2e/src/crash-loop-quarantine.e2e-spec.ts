import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { requiredEnv } from '@lanner/testing';
import { readClusterState } from './harness/cluster-state';
import { runDatabaseUrl } from './harness/database';
import { describeExecution, onlyTaskRun, scenario, stateOf, taskRunsOf, type ErrorField, delay } from './harness/scenario';

// An execution whose processing stops the executor must not be replayed into a crash
// on every start. The executor is held inside the processing of one execution for
// real: this spec holds a lock on `task_runs` in the cluster's own database, so the
// executor's store of that execution waits, and the executor is SIGKILLed there. The
// first kill is on the live path (which records nothing, by design: no write per
// event); the next two on the replays after the restarts, which the executor marks.
// At the following start it quarantines the execution instead of replaying it.
const NAMESPACE = 'e2e.crash.loop';
const POISON_FLOW = `
id: held
namespace: ${NAMESPACE}
tasks:
  - id: approval
    type: io.kestra.plugin.core.flow.Pause
  - id: after
    type: io.kestra.plugin.core.log.Log
    message: never reached
`;
const HEALTHY_FLOW = `
id: healthy
namespace: ${NAMESPACE}
tasks:
  - id: answer
    type: io.kestra.plugin.core.debug.Return
    format: fine
`;
const QUARANTINED = 'quarantined: the executor stopped twice while processing this execution after a restart';
// A new executor waits for Kafka to drop the dead member (session timeout) before it owns the partitions again.
const HELD_TIMEOUT_MS = 120_000;

function messageOf(error: ErrorField | undefined): string {
  if (error === undefined || error === null) return '';
  return typeof error === 'string' ? error : error.message;
}

describe('an execution whose processing stops the executor', () => {
  const { lanner, cluster } = scenario();
  const state = readClusterState();
  const databaseUrl = runDatabaseUrl(requiredEnv('DATABASE_URL', 'the e2e suite'), state.databaseName);
  let holder: Client | undefined;
  let observer: Client | undefined;

  beforeAll(async () => {
    await lanner.createFlow(POISON_FLOW);
    await lanner.createFlow(HEALTHY_FLOW);
    observer = new Client({ connectionString: databaseUrl });
    await observer.connect();
  });

  afterAll(async () => {
    await release();
    await observer?.end();
    // The cluster is shared: the next specs need an executor.
    await cluster.ensureRunning('executor');
  }, 200_000);

  /** Every write of task runs waits from now on (reads go on), until `release`. */
  async function holdTaskRunWrites(): Promise<void> {
    holder = new Client({ connectionString: databaseUrl });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE task_runs IN SHARE ROW EXCLUSIVE MODE');
  }

  async function release(): Promise<void> {
    const client = holder;
    holder = undefined;
    if (client === undefined) return;
    await client.query('ROLLBACK').catch(() => undefined);
    await client.end().catch(() => undefined);
  }

  /** Backends of killed executors: PostgreSQL notices their client is gone only once their lock wait ends. */
  const deadBackends = new Set<number>();

  /** Resolves once a write of task runs of the running executor waits on the held lock: it is inside the processing. */
  async function untilAWriteWaits(what: string): Promise<void> {
    const deadline = Date.now() + HELD_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const waiting = await (observer as Client).query(
        "SELECT pid FROM pg_locks WHERE NOT granted AND relation = 'task_runs'::regclass",
      );
      const pids = waiting.rows.map((row: { pid: number }) => row.pid).filter((pid) => !deadBackends.has(pid));
      if (pids.length > 0) {
        for (const pid of pids) deadBackends.add(pid);
        return;
      }
      await delay(250);
    }
    throw new Error(`no write of task runs waited within ${HELD_TIMEOUT_MS} ms (${what})`);
  }

  /** SIGKILL, a short downtime, and the executor starts again (ready: it answers its health check). */
  async function killExecutor(): Promise<void> {
    const restart = await cluster.restart('executor', { signal: 'SIGKILL', downtimeMs: 500 });
    expect(restart.exit.signal).toBe('SIGKILL');
  }

  async function terminateDeadBackends(): Promise<void> {
    await (observer as Client).query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [[...deadBackends]]);
  }

  it('is quarantined FAILED with the reason, its events parked, and the executor goes on with other executions', async () => {
    const { id } = await lanner.execute(NAMESPACE, 'held');
    await lanner.waitForState(id, 'PAUSED');
    const logFile = state.logFiles['executor'] as string;
    const logAtStart = readFileSync(logFile, 'utf8').length;

    await holdTaskRunWrites();
    expect((await lanner.resume(id)).status).toBe(204);
    await untilAWriteWaits('the resume, on the live path');
    await killExecutor();
    await terminateDeadBackends();
    await untilAWriteWaits('the resume replayed after the first restart');
    await killExecutor();
    await terminateDeadBackends();
    await untilAWriteWaits('the resume replayed after the second restart');
    // Restarted with the lock still held: the quarantine's own write waits too, until released.
    await killExecutor();
    await terminateDeadBackends();
    await release();

    const quarantined = await lanner.waitUntilEnded(id, 60_000);
    expect(stateOf(quarantined)).toBe('FAILED');
    expect(messageOf(quarantined.error)).toContain(QUARANTINED);
    const approval = onlyTaskRun(quarantined, 'approval');
    expect(stateOf(approval)).toBe('FAILED');
    expect(messageOf(approval.error)).toContain(QUARANTINED);
    expect(messageOf(approval.error)).toContain("handling 'execution.resume'");
    // The resume that stopped the executor was never applied: nothing after the pause ran.
    expect(taskRunsOf(quarantined, 'after')).toEqual([]);

    // Parked, where an operator sees it: the event it died on, with the reason.
    const parked = await (observer as Client).query(
      'SELECT message_type, reason FROM parked_executor_events WHERE execution_id = $1',
      [id],
    );
    expect(parked.rows).toEqual([{ message_type: 'execution.resume', reason: expect.stringContaining(QUARANTINED) }]);

    // The executor is up and runs everything else.
    const fresh = await lanner.execute(NAMESPACE, 'healthy');
    const ended = await lanner.waitUntilEnded(fresh.id, 60_000);
    expect({ state: stateOf(ended), view: describeExecution(ended) }).toEqual({
      state: 'SUCCESS',
      view: describeExecution(ended),
    });

    const log = readFileSync(logFile, 'utf8').slice(logAtStart);
    expect(log).toContain('the executor stopped while processing this execution');
    expect(log).toContain('execution quarantined');
    // Kafka redelivered the uncommitted resume once more: parked, not processed.
    expect(log).toContain('event of a quarantined execution parked');
    // Still FAILED, untouched by that redelivery.
    expect(stateOf(await lanner.execution(id))).toBe('FAILED');
  }, 900_000);
});
