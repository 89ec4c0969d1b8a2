import {
  describeExecution,
  Execution,
  EXECUTOR_GROUP,
  groupMembers,
  scenario,
  stateOf,
  TERMINAL_STATES,
  delay,
} from './harness/scenario';
import { problemsOfThreeSteps, threeStepsFlow, THREE_STEPS_FLOW_ID } from './harness/three-steps';

// The durability promise: the executor commits a Kafka offset only after the
// execution's state is stored and its actions published, and timers are rows, so a
// SIGKILL mid-flight and a restart lose nothing and run nothing twice.
const NAMESPACE = 'e2e.executor.kill9';
const FLOW_ID = THREE_STEPS_FLOW_ID;
const FLOW = threeStepsFlow(NAMESPACE);

const EXECUTIONS = 200;
const SUBMIT_BATCH = 10;
/** A quarter of them RUNNING: a good part is genuinely in flight at the kill. */
const RUNNING_AT_KILL = 50;
const DOWNTIME_MS = 1500;
const READ_CONCURRENCY = 8;
// Generous: the new executor compiles, then waits for Kafka to drop the dead member
// from its group (session timeout) before it owns the partitions again.
const ALL_ENDED_TIMEOUT_MS = 240_000;

const terminal = (execution: Execution): boolean => (TERMINAL_STATES as readonly string[]).includes(stateOf(execution));

describe('SIGKILL of the executor in the middle of 200 running executions', () => {
  const { lanner, cluster, kafkaNamespace } = scenario();
  const ended = new Map<string, Execution>();
  let ids: string[] = [];

  beforeAll(() => lanner.createFlow(FLOW));

  afterAll(async () => {
    // The cluster is shared: the next specs need an executor, and no leftover work on the workers' slots.
    await cluster.ensureRunning('executor');
    const leftovers = ids.filter((id) => !ended.has(id));
    for (let start = 0; start < leftovers.length; start += SUBMIT_BATCH) {
      await Promise.all(leftovers.slice(start, start + SUBMIT_BATCH).map((id) => lanner.kill(id).catch(() => undefined)));
    }
  }, 200_000);

  async function countIn(state: string): Promise<number> {
    const answer = await lanner.request<{ total: number }>(
      'GET',
      `/executions/search?namespace=${NAMESPACE}&flowId=${FLOW_ID}&state=${state}&size=1`,
    );
    if (answer.status !== 200) throw new Error(`searching ${state} executions: HTTP ${answer.status} ${answer.text}`);
    return answer.body.total;
  }

  /** Reads every execution not yet seen ended, a few at a time; returns the latest view of those still going. */
  async function readUnended(): Promise<Execution[]> {
    const pending = ids.filter((id) => !ended.has(id));
    const going: Execution[] = [];
    for (let start = 0; start < pending.length; start += READ_CONCURRENCY) {
      const views = await Promise.all(pending.slice(start, start + READ_CONCURRENCY).map((id) => lanner.execution(id)));
      for (const view of views) {
        if (terminal(view)) ended.set(view.id, view);
        else going.push(view);
      }
    }
    return going;
  }

  it(
    'brings all 200 to SUCCESS after a restart, each task run exactly once',
    async () => {
      // Only this run's executor may hold the run's partitions, or a loss could come from elsewhere.
      const executorGroup = `${kafkaNamespace}${EXECUTOR_GROUP}`;
      const executors = await groupMembers(executorGroup);
      if (executors.length !== 1) {
        throw new Error(
          `consumer group ${executorGroup} has ${executors.length} members (${executors.join(', ') || 'none'}), not just this run's executor`,
        );
      }

      for (let start = 0; start < EXECUTIONS; start += SUBMIT_BATCH) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(SUBMIT_BATCH, EXECUTIONS - start) }, () => lanner.execute(NAMESPACE, FLOW_ID)),
        );
        ids.push(...batch.map((execution) => execution.id));
      }
      ids = [...new Set(ids)];
      expect(ids).toHaveLength(EXECUTIONS);

      let running = 0;
      const deadline = Date.now() + 60_000;
      while ((running = await countIn('RUNNING')) < RUNNING_AT_KILL && Date.now() < deadline) await delay(200);
      const succeededAtKill = await countIn('SUCCESS');
      // Genuinely in flight: a good part RUNNING, and most not ended yet.
      expect(running).toBeGreaterThanOrEqual(RUNNING_AT_KILL);
      expect(succeededAtKill).toBeLessThan(EXECUTIONS / 2);

      const restart = await cluster.restart('executor', { signal: 'SIGKILL', downtimeMs: DOWNTIME_MS });
      expect(restart.exit.signal).toBe('SIGKILL');
      expect(restart.startedPid).not.toBe(restart.stoppedPid);
      process.stdout.write(
        `executor SIGKILLed with ${running} executions RUNNING and ${succeededAtKill} SUCCESS; restarted (pid ${restart.stoppedPid} -> ${restart.startedPid})\n`,
      );

      const until = Date.now() + ALL_ENDED_TIMEOUT_MS;
      let going = await readUnended();
      while (going.length > 0 && Date.now() < until) {
        await delay(1000);
        going = await readUnended();
      }
      if (going.length > 0) {
        throw new Error(
          `${going.length} of ${EXECUTIONS} executions never ended within ${ALL_ENDED_TIMEOUT_MS} ms after the restart (lost?):\n` +
            going.slice(0, 20).map(describeExecution).join('\n'),
        );
      }

      const wrong = [...ended.values()]
        .map((execution) => ({ execution, problems: problemsOfThreeSteps(execution) }))
        .filter(({ problems }) => problems.length > 0);
      const report = wrong
        .slice(0, 20)
        .map(({ execution, problems }) => `${problems.join('; ')}\n${describeExecution(execution)}`);
      expect({ wrong: wrong.length, first: report }).toEqual({ wrong: 0, first: [] });
    },
    ALL_ENDED_TIMEOUT_MS + 150_000,
  );
});
