import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import {
  describeExecution,
  eventually,
  onlyTaskRun,
  scenario,
  stateOf,
  type ConnectedWorker,
  type Execution,
} from './harness/scenario';

// A controller that dies while its workers run tasks loses nothing and runs nothing twice:
// the workers (anonymous, each known by its persisted instance id) keep their results while
// no controller is up, reconnect under the same worker id, and the restarted controller
// adopts their jobs and takes the results they finished during the outage.
const NAMESPACE = 'e2e.controller.kill9';
const FLOW_ID = 'side-effect';
// Each run appends to its marker file: a second run of the task would show as a second line.
// The task holds until the spec creates the release file (or 60 s pass), so every task is
// still running when the controller dies, however far apart the jobs were dispatched.
const FLOW = `
id: ${FLOW_ID}
namespace: ${NAMESPACE}
inputs:
  - { id: marker, type: STRING }
  - { id: release, type: STRING }
tasks:
  - id: effect
    type: io.kestra.plugin.scripts.shell.Commands
    commands:
      - echo started >> "{{ inputs.marker }}"
      - for i in $(seq 600); do [ -e "{{ inputs.release }}" ] && break; sleep 0.1; done
      - echo done >> "{{ inputs.marker }}"
`;

/** One per slot of the cluster's two workers: both workers hold jobs when the controller dies. */
const EXECUTIONS = 4;
/** The tasks are released 1 s into it: every task finishes while no controller is up. */
const DOWNTIME_MS = 6_000;
const RELEASE_AFTER_KILL_MS = 1_000;
const ENDED_TIMEOUT_MS = 60_000;

const linesOf = (path: string): string[] =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];

describe('SIGKILL of the controller while its workers run tasks', () => {
  const { lanner, cluster, scratchFile } = scenario();
  const ids: string[] = [];

  beforeAll(() => lanner.createFlow(FLOW));

  afterAll(async () => {
    await cluster.ensureRunning('controller');
    await Promise.all(ids.map((id) => lanner.kill(id).catch(() => undefined)));
  }, 120_000);

  const workerIds = async (): Promise<Record<string, string>> => {
    const workers: ConnectedWorker[] = await lanner.groupWorkers('default');
    return Object.fromEntries(workers.filter((one) => one.name.startsWith('e2e-worker-')).map((one) => [one.name, one.id]));
  };

  it(
    'takes the results finished during the outage after the restart: every task ran once, one attempt',
    async () => {
      const before = await workerIds();
      expect(Object.keys(before).sort()).toEqual(['e2e-worker-a', 'e2e-worker-b']);

      const stamp = Date.now();
      const markers = Array.from({ length: EXECUTIONS }, (_, index) => scratchFile(`controller-kill9-${stamp}-${index}`));
      const release = scratchFile(`controller-kill9-${stamp}-release`);
      for (const marker of markers) ids.push((await lanner.execute(NAMESPACE, FLOW_ID, { marker, release })).id);
      await eventually(() => markers.every((marker) => linesOf(marker).length === 1), 'every task started', 45_000);

      // The controller dies at once; its tasks are released while it is down and end then.
      const restarting = cluster.restart('controller', { signal: 'SIGKILL', downtimeMs: DOWNTIME_MS });
      await new Promise((resolve) => setTimeout(resolve, RELEASE_AFTER_KILL_MS));
      writeFileSync(release, '');
      await eventually(
        () => markers.every((marker) => linesOf(marker).length === 2),
        'every task to end while no controller is up',
        DOWNTIME_MS - RELEASE_AFTER_KILL_MS,
      );
      const restart = await restarting;
      expect(restart.exit.signal).toBe('SIGKILL');

      const ended: Execution[] = [];
      for (const id of ids) ended.push(await lanner.waitUntilEnded(id, ENDED_TIMEOUT_MS));
      const problems = ended.flatMap((execution) => {
        const attempts = onlyTaskRun(execution, 'effect').attempts ?? [];
        return stateOf(execution) === 'SUCCESS' && attempts.length === 1 ? [] : [describeExecution(execution)];
      });
      expect(problems).toEqual([]);
      // The side effects happened once each: no task ran again after the reconnect.
      for (const marker of markers) expect(linesOf(marker)).toEqual(['started', 'done']);
      // The workers came back under the ids they had.
      expect(await workerIds()).toEqual(before);
    },
    ENDED_TIMEOUT_MS * EXECUTIONS + 120_000,
  );
});
