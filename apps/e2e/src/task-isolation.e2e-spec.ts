import { join } from 'node:path';
import { WORKER_NAMES } from './harness/cluster';
import { describeExecution, eventually, onlyTaskRun, scenario, stateOf } from './harness/scenario';

const PROBE_COUNT = 7;

// Lanner's task isolation (docs/task-isolation.md), on the cluster's real workers (run as
// root, as in a container): a shell task cannot read its worker's data dir, the worker's
// environment, or the worker's /proc entries.
const NAMESPACE = 'e2e.task.isolation';
const FLOW = `
id: probe
namespace: ${NAMESPACE}
inputs:
  - { id: dataDirs, type: STRING }
tasks:
  - id: probe
    type: io.kestra.plugin.scripts.shell.Commands
    commands:
      - echo "uid $(id -u)"
      - for dir in {{ inputs.dataDirs }}; do if cat "$dir/instance-id" >/dev/null 2>&1; then echo "LEAK data-file"; else echo "denied data-file"; fi; done
      - for dir in {{ inputs.dataDirs }}; do if ls "$dir" >/dev/null 2>&1; then echo "LEAK data-dir"; else echo "denied data-dir"; fi; done
      - if cat /proc/$PPID/environ >/dev/null 2>&1; then echo "LEAK parent-environ"; else echo "denied parent-environ"; fi
      - if env | grep -q '^LANNER_WORKER_'; then echo "LEAK environment"; else echo "denied environment"; fi
`;

describe('task isolation on a worker run as root', () => {
  const { lanner, workDir } = scenario();

  beforeAll(() => lanner.createFlow(FLOW));

  it("a shell task cannot read the worker's data dir, its environment or its parent's /proc", async () => {
    const dataDirs = WORKER_NAMES.map((name) => join(workDir, name)).join(' ');
    const { id } = await lanner.execute(NAMESPACE, 'probe', { dataDirs });
    const ended = await lanner.waitUntilEnded(id);
    expect(stateOf(ended)).toBe('SUCCESS');
    onlyTaskRun(ended, 'probe');
    // The indexer writes in batches: the stored lines may trail the task's end by a moment.
    let probes: string[] = [];
    const read = async () => {
      const stored = await lanner.logs(id);
      const messages = Array.isArray(stored.body)
        ? (stored.body as { message?: string }[]).map((line) => line.message ?? '')
        : [];
      probes = messages.filter((line) => /^(uid|LEAK|denied) /.test(line));
    };
    await read();
    await eventually(() => probes.length >= PROBE_COUNT, 'every probe line is stored', 20_000, read);
    expect({ probes, execution: describeExecution(ended) }).toEqual({
      probes: [
        'uid 65534',
        'denied data-file',
        'denied data-file',
        'denied data-dir',
        'denied data-dir',
        'denied parent-environ',
        'denied environment',
      ],
      execution: describeExecution(ended),
    });
  });
});
