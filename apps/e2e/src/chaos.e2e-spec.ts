import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { Client } from 'pg';
import { requiredEnv } from '@lanner/testing';
import { analyseFirings, firingProblems, formatFirings, type Firing } from './chaos/firings';
import { analyse, formatReport, leakedCount, lostCount, parseEffects, type Happened, type LeakFindings } from './chaos/report';
import { describeDisruption, planDisruptions, type ChaosTargets, type Disruption } from './chaos/schedule';
import { readClusterState } from './harness/cluster-state';
import { workerKillRedispatchBoundMs } from './harness/configuration';
import { runDatabaseUrl } from './harness/database';
import { Execution, Fleet, scenario, stateOf, TERMINAL_STATES, type StartedProcess } from './harness/scenario';

// The chaos suite: under load, a seeded driver kills and pauses every kind of role while
// executions of a mixed flow run, then checks that nothing was lost, nothing leaked, and
// that every duplicate run is one at-least-once allows. The reduced size runs in the e2e
// suite; `node tools/chaos/run.js --seed 7 --executions 1000` runs the full size.
const SEED = Number(process.env['LANNER_CHAOS_SEED'] ?? '20261203');
const EXECUTIONS = Number(process.env['LANNER_CHAOS_EXECUTIONS'] ?? '60');
/** One round disrupts each kind of target once; the full size repeats them. */
const ROUNDS = Number(process.env['LANNER_CHAOS_ROUNDS'] ?? String(Math.max(1, Math.round(EXECUTIONS / 200))));
const REPORT_FILE = process.env['LANNER_CHAOS_REPORT'];
const NAMESPACE = 'e2e.chaos';
/** A worker silent for 5 heartbeats (3 s) loses its stream: the pause must outlast that. */
const PAUSE_MS = 20_000;
const SUBMIT_BATCH = 5;
const SUBMIT_PAUSE_MS = 250;
const READ_CONCURRENCY = 8;
/** Generous: after the last disruption the cluster works off its backlog on 6 slots of a loaded machine. */
const ALL_ENDED_TIMEOUT_MS = Math.max(150_000, EXECUTIONS * 1_500);
/** Dead instances become NOT_RUNNING after the heartbeat timeout and the grace period (10 s + 30 s). */
const SETTLE_TIMEOUT_MS = 120_000;

const CHILD_ID = 'leaf';
const PARENT_ID = 'mixed';
// Every shell task writes `<taskRunId> <taskId> start|end <ms>` to the effects file: a
// run that happened twice shows twice, whatever the API says.
const effect = (phase: string) =>
  `echo "{{ taskrun.id }} {{ taskrun.taskId }} ${phase} $(date +%s%3N)" >> "{{ inputs.effects }}"`;
const CHILD = `
id: ${CHILD_ID}
namespace: ${NAMESPACE}
inputs:
  - { id: effects, type: STRING }
tasks:
  - id: leaf-work
    type: io.kestra.plugin.scripts.shell.Commands
    commands:
      - ${effect('start')}
      - sleep 0.5
      - ${effect('end')}
`;
const PARENT = `
id: ${PARENT_ID}
namespace: ${NAMESPACE}
inputs:
  - { id: effects, type: STRING }
  - { id: marker, type: STRING }
tasks:
  - id: fan
    type: io.kestra.plugin.core.flow.Parallel
    tasks:
      - id: each
        type: io.kestra.plugin.core.flow.ForEach
        values: ["left", "right"]
        concurrencyLimit: 0
        tasks:
          - id: work
            type: io.kestra.plugin.scripts.shell.Commands
            commands:
              - ${effect('start')}
              - sleep 1
              - ${effect('end')}
      - id: nap
        type: io.kestra.plugin.core.flow.Sleep
        duration: PT1S
  - id: flaky
    type: io.kestra.plugin.scripts.shell.Commands
    commands:
      - |
        if [ -f "{{ inputs.marker }}" ]; then
          echo "second attempt succeeds"
        else
          touch "{{ inputs.marker }}"
          echo "first attempt fails on purpose" >&2
          exit 1
        fi
    retry: { type: constant, interval: PT1S, maxAttempts: 3 }
  - id: child
    type: io.kestra.plugin.core.flow.Subflow
    namespace: ${NAMESPACE}
    flowId: ${CHILD_ID}
    inputs: { effects: "{{ inputs.effects }}" }
    wait: true
  - id: done
    type: io.kestra.plugin.core.log.Log
    message: "mixed {{ execution.id }} done"
`;

// A schedule that fires every second from the first submission until after the last
// disruption (the schedulers are killed among the rest): each due date must fire once.
const SCHEDULED_ID = 'tick';
const SCHEDULED = `
id: ${SCHEDULED_ID}
namespace: ${NAMESPACE}
tasks:
  - id: fired
    type: io.kestra.plugin.core.log.Log
    message: "tick {{ trigger.date }}"
triggers:
  - id: every-second
    type: io.kestra.plugin.core.trigger.Schedule
    cron: "* * * * * *"
    withSeconds: true
`;
/**
 * The schedule is deleted this long after the last disruption is over: a killed
 * scheduler's 10 s lease has expired by then and the other one has caught up its dates.
 */
const SCHEDULE_AFTER_LAST_DISRUPTION_MS = 15_000;
/** How far the first date may trail the flow's creation and the last its deletion (a loop behind on a loaded machine). */
const SCHEDULE_EDGE_MS = 10_000;

// The cluster's own processes (restarted in place, same ports) and the spec's extra ones.
const EXTRA_EXECUTOR = 'chaos-executor-2';
const EXTRA_CONTROLLER = 'chaos-controller-2';
const EXTRA_WORKER = 'chaos-worker-c';
const EXTRA_SCHEDULER = 'chaos-scheduler-2';
const WORKERS = ['e2e-worker-a', 'e2e-worker-b', EXTRA_WORKER];

/** A resumed process declared NOT_RUNNING exits on its next heartbeat (every 3 s). */
const RESUME_EXIT_CHECK_MS = 5_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const terminal = (execution: Execution): boolean => (TERMINAL_STATES as readonly string[]).includes(stateOf(execution));

interface ServiceView {
  readonly id: string;
  readonly role: string;
  readonly state: string;
  readonly heartbeatAt?: string | null;
}

describe(`chaos: ${EXECUTIONS} executions of a mixed flow while every role is killed (seed ${SEED})`, () => {
  const { lanner, cluster, scratchFile } = scenario();
  const fleet = new Fleet(cluster, lanner);
  const effectsFile = scratchFile(`chaos-effects-${SEED}-${Date.now()}.log`);
  const paused = new Set<number>();
  const extras = new Map<string, StartedProcess>();
  let database: Client | undefined;

  beforeAll(async () => {
    // Script tasks may run as a user of their own: every one must be able to append here.
    writeFileSync(effectsFile, '', { mode: 0o666 });
    chmodSync(effectsFile, 0o666);
    await lanner.createFlow(CHILD);
    await lanner.createFlow(PARENT);
    const state = readClusterState();
    database = new Client({ connectionString: runDatabaseUrl(requiredEnv('DATABASE_URL', 'the e2e suite'), state.databaseName) });
    await database.connect();
    // 2 executors, 2 controllers, 2 schedulers, 3 workers; the third worker prefers the second controller.
    const [executor, controller, scheduler] = await Promise.all([
      fleet.startExecutor(EXTRA_EXECUTOR),
      fleet.startController(EXTRA_CONTROLLER, {}),
      fleet.startScheduler(EXTRA_SCHEDULER),
    ]);
    extras.set(EXTRA_EXECUTOR, executor);
    extras.set(EXTRA_CONTROLLER, controller);
    extras.set(EXTRA_SCHEDULER, scheduler);
    const worker = await fleet.startWorker(EXTRA_WORKER, {
      slots: 2,
      controllers: `127.0.0.1:${controller.grpcPort}, 127.0.0.1:${state.controllerGrpcPort}`,
    });
    extras.set(EXTRA_WORKER, worker);
  }, 400_000);

  afterAll(async () => {
    // Already deleted unless the run stopped half way: the schedule must not fire into the next specs.
    await lanner.request('DELETE', `/flows/${NAMESPACE}/${SCHEDULED_ID}`).catch(() => undefined);
    for (const pid of paused) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // already gone
      }
    }
    await fleet.stopAll();
    for (const name of ['executor', 'controller', 'scheduler', 'e2e-worker-a', 'e2e-worker-b']) {
      await cluster.ensureRunning(name).catch(() => undefined);
    }
    await database?.end();
  }, 400_000);

  /** Carries out one disruption and resolves once the process is back. */
  async function disrupt(disruption: Disruption): Promise<Happened> {
    const startedAtMs = Date.now();
    if (disruption.kind === 'pause') {
      const pid = extras.get(disruption.target)?.pid;
      if (pid === undefined) throw new Error(`no pid for ${disruption.target}`);
      process.kill(pid, 'SIGSTOP');
      paused.add(pid);
      await delay(disruption.durationMs);
      process.kill(pid, 'SIGCONT');
      paused.delete(pid);
      // Declared NOT_RUNNING while it was stopped, a process stops itself on its next heartbeat (exit 75):
      // the driver, as its supervisor, starts it again.
      await delay(RESUME_EXIT_CHECK_MS);
      if (!isAlive(pid) && (disruption.role === 'executor' || disruption.role === 'controller')) {
        const exit = await cluster.stop(disruption.target, { graceMs: 0 }).catch(() => undefined);
        process.stdout.write(
          `chaos: ${disruption.target} stopped itself after its pause (${JSON.stringify(exit)}); restarting it\n`,
        );
        const again =
          disruption.role === 'executor'
            ? await fleet.startExecutor(disruption.target)
            : await fleet.startController(disruption.target, {});
        extras.set(disruption.target, again);
      }
    } else {
      await cluster.restart(disruption.target, {
        signal: disruption.kind === 'kill9' ? 'SIGKILL' : 'SIGTERM',
        downtimeMs: disruption.durationMs,
      });
    }
    return { disruption, startedAtMs, endedAtMs: Date.now() };
  }

  /** The API answers 503 ("try again shortly") while a service it needs is restarting or busy: retried, and counted. */
  let unavailableAnswers = 0;
  async function readExecution(id: string): Promise<Execution> {
    for (let attempt = 1; ; attempt++) {
      const answer = await lanner.request<Execution>('GET', `/executions/${id}`);
      if (answer.status === 200) return answer.body;
      if (answer.status !== 503 || attempt >= 10)
        throw new Error(`reading execution ${id}: HTTP ${answer.status} ${answer.text}`);
      unavailableAnswers++;
      await delay(1000);
    }
  }

  async function readAll(ids: readonly string[], ended: Map<string, Execution>): Promise<Execution[]> {
    const going: Execution[] = [];
    const pending = ids.filter((id) => !ended.has(id));
    for (let start = 0; start < pending.length; start += READ_CONCURRENCY) {
      const views = await Promise.all(pending.slice(start, start + READ_CONCURRENCY).map((id) => readExecution(id)));
      for (const view of views) {
        if (terminal(view)) ended.set(view.id, view);
        else going.push(view);
      }
    }
    return going;
  }

  async function leaks(): Promise<LeakFindings> {
    const capacity = await lanner.groupCapacity('default');
    const busyWorkers = capacity
      .filter((worker) => (worker.used ?? 0) > 0 || (worker.waiting ?? 0) > 0 || worker.subscriptions.some((one) => one.used > 0))
      .map((worker) => `${worker.name} used ${worker.used ?? '?'}`);
    const connected = await lanner.groupWorkers('default');
    const registryMismatch: string[] = [];
    for (const name of WORKERS) {
      const listed = connected.filter((worker) => worker.name === name).length;
      if (listed !== 1) registryMismatch.push(`${name} listed ${listed} times`);
      const inLedger = capacity.filter((worker) => worker.name === name).length;
      if (inLedger !== 1) registryMismatch.push(`${name} has ${inLedger} ledgers`);
    }
    // The durable running-job store (read only): every row is a job some worker still holds.
    const rows = await (database as Client).query<{ count: string }>('SELECT count(*) AS count FROM running_jobs');
    const services = await lanner.instanceRequest<ServiceView[]>('GET', '/services');
    if (services.status !== 200) throw new Error(`GET /instance/services: HTTP ${services.status} ${services.text}`);
    const now = Date.now();
    const instancesNotSettled: string[] = [];
    const running: Record<string, number> = {};
    for (const instance of services.body) {
      const fresh = instance.heartbeatAt ? now - Date.parse(instance.heartbeatAt) < 15_000 : false;
      if (instance.state === 'RUNNING' && fresh) running[instance.role] = (running[instance.role] ?? 0) + 1;
      else if (instance.state !== 'NOT_RUNNING') instancesNotSettled.push(`${instance.role} ${instance.id} ${instance.state}`);
    }
    for (const [role, alive] of Object.entries({ executor: 2, controller: 2, scheduler: 2 })) {
      const registered = services.body.some((instance) => instance.role.toLowerCase() === role);
      const count = Object.entries(running).find(([name]) => name.toLowerCase() === role)?.[1] ?? 0;
      if (registered && count !== alive) instancesNotSettled.push(`${count} ${role} instances RUNNING, ${alive} processes alive`);
    }
    return {
      busyWorkers,
      runningJobs: Number(rows.rows[0].count),
      registryMismatch,
      instancesNotSettled,
      instancesNotRunning: services.body.filter((instance) => instance.state === 'NOT_RUNNING').length,
    };
  }

  it(
    'ends every execution, loses nothing, leaks no slot, and runs a task twice only across a disruption',
    async () => {
      const targets: ChaosTargets = {
        killWorkers: ['e2e-worker-a'],
        killControllers: ['controller'],
        killExecutors: ['executor'],
        killSchedulers: ['scheduler', EXTRA_SCHEDULER],
        termWorkers: ['e2e-worker-b'],
        pause: [
          { target: EXTRA_WORKER, role: 'worker' },
          { target: EXTRA_EXECUTOR, role: 'executor' },
        ],
      };
      const plan = planDisruptions(targets, {
        seed: SEED,
        rounds: ROUNDS,
        startMs: 8_000,
        gapMs: [2_000, 8_000],
        downtimeMs: [500, 3_000],
        pauseMs: PAUSE_MS,
      });
      process.stdout.write(`chaos plan (seed ${SEED}):\n${plan.map((one) => `  ${describeDisruption(one)}`).join('\n')}\n`);

      const scheduleCreatedAtMs = Date.now();
      await lanner.createFlow(SCHEDULED);
      const began = Date.now();
      const ids: string[] = [];
      let disruptionsDone = 0;
      // Submissions are spread over the disruptions (the share of each is released when the
      // previous one is over), so every disruption meets work in flight and a backlog.
      const submitting = (async () => {
        while (ids.length < EXECUTIONS) {
          const released = Math.ceil((EXECUTIONS * (disruptionsDone + 1)) / (plan.length + 1));
          if (ids.length >= released) {
            await delay(200);
            continue;
          }
          const size = Math.min(SUBMIT_BATCH, EXECUTIONS - ids.length);
          const first = ids.length;
          const batch = await Promise.all(
            Array.from({ length: size }, (_, offset) =>
              lanner.execute(NAMESPACE, PARENT_ID, {
                effects: effectsFile,
                marker: scratchFile(`chaos-${SEED}-${began}-${first + offset}.marker`),
              }),
            ),
          );
          ids.push(...batch.map((execution) => execution.id));
          await delay(SUBMIT_PAUSE_MS);
        }
      })();
      const happened: Happened[] = [];
      for (const disruption of plan) {
        await delay(disruption.afterMs);
        happened.push(await disrupt(disruption));
        disruptionsDone++;
      }
      await submitting;
      expect(new Set(ids).size).toBe(EXECUTIONS);

      // The schedule stops once the last disruption is well over; its trigger row goes with the flow.
      const lastOver = Math.max(...happened.map((one) => one.endedAtMs));
      await delay(Math.max(0, lastOver + SCHEDULE_AFTER_LAST_DISRUPTION_MS - Date.now()));
      const deleted = await lanner.request('DELETE', `/flows/${NAMESPACE}/${SCHEDULED_ID}`);
      if (deleted.status !== 204) throw new Error(`deleting the scheduled flow: HTTP ${deleted.status} ${deleted.text}`);
      const scheduleDeletedAtMs = Date.now();
      // Every execution the schedule created, with the date it stands for (`trigger.date`).
      const scheduledRows = await (database as Client).query<{ id: string; date: string }>(
        `SELECT id, trigger->'variables'->>'date' AS date FROM executions WHERE namespace = $1 AND flow_id = $2`,
        [NAMESPACE, SCHEDULED_ID],
      );
      const firings: Firing[] = scheduledRows.rows.map((row) => ({ executionId: row.id, dateMs: Date.parse(row.date) }));
      const firingFindings = analyseFirings(firings, {
        createdAtMs: scheduleCreatedAtMs,
        deletedAtMs: scheduleDeletedAtMs,
        periodMs: 1000,
        edgeMs: SCHEDULE_EDGE_MS,
      });
      // Each scheduled execution must end SUCCESS too, as the mixed ones.
      const allIds = [...ids, ...firings.map((firing) => firing.executionId)];

      const ended = new Map<string, Execution>();
      const until = Date.now() + ALL_ENDED_TIMEOUT_MS;
      let going = await readAll(allIds, ended);
      while (going.length > 0 && Date.now() < until) {
        await delay(2000);
        going = await readAll(allIds, ended);
      }

      // Leaks settle a little after the last result (streams end, the coordinator moves instances).
      let leakFindings = await leaks();
      const settleUntil = Date.now() + SETTLE_TIMEOUT_MS;
      while (leakedCount(leakFindings) > 0 && Date.now() < settleUntil) {
        await delay(3000);
        leakFindings = await leaks();
      }

      const workerNames = Object.fromEntries(
        (await lanner.groupWorkers('default')).map((worker) => [worker.id, worker.name] as const),
      );
      const findings = analyse(
        [...ended.values()],
        going.map((execution) => `${execution.id} ${stateOf(execution)}`),
        parseEffects(readFileSync(effectsFile, 'utf8')),
        happened,
        { attempts: { flaky: 2 }, shellTaskIds: ['work'], workerNames },
      );
      const report = formatReport(
        {
          seed: SEED,
          elapsedMs: Date.now() - began,
          redispatchBoundMs: workerKillRedispatchBoundMs(),
          scheduled: firings.length,
        },
        happened,
        findings,
        leakFindings,
      );
      const fullReport = [report, ...formatFirings(firingFindings), `API answers 503 (retried): ${unavailableAnswers}`].join(
        '\n',
      );
      process.stdout.write(`${fullReport}\n`);
      if (REPORT_FILE) {
        writeFileSync(REPORT_FILE, `${fullReport}\n`);
        // The raw facts, to look into a finding after the cluster is gone.
        writeFileSync(
          `${REPORT_FILE}.json`,
          JSON.stringify({ seed: SEED, happened, findings, leaks: leakFindings, firings: firingFindings }, null, 1),
        );
      }

      expect({
        lost: lostCount(findings),
        leaked: leakedCount(leakFindings),
        notTerminal: findings.notTerminal.length,
        duplicatesUnexplained: findings.duplicatesUnexplained,
        scheduleProblems: firingProblems(firingFindings),
        datesFiredTwice: firingFindings.duplicates,
        datesMissing: firingFindings.missing,
        scheduleEdges: firingFindings.edgesTooWide,
      }).toEqual({
        lost: 0,
        leaked: 0,
        notTerminal: 0,
        duplicatesUnexplained: [],
        scheduleProblems: 0,
        datesFiredTwice: [],
        datesMissing: [],
        scheduleEdges: [],
      });
    },
    ALL_ENDED_TIMEOUT_MS + SETTLE_TIMEOUT_MS + 900_000,
  );
});
