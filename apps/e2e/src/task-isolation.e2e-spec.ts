import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describeExecution, eventually, onlyTaskRun, scenario, stateOf } from './harness/scenario';

// Lanner's task isolation (docs/task-isolation.md), on the run's real workers (run as root,
// as in a container): a shell task cannot read the secret files of its server's data dirs
// (the distributed workers' instance ids; a standalone's admin token and worker signing
// key), list those dirs, read the worker's /proc environ, or see the worker's variables.
const NAMESPACE = 'e2e.task.isolation';
const FLOW = `
id: probe
namespace: ${NAMESPACE}
inputs:
  - { id: files, type: STRING }
tasks:
  - id: probe
    type: io.kestra.plugin.scripts.shell.Commands
    commands:
      - echo "uid $(id -u)"
      - for file in {{ inputs.files }}; do if cat "$file" >/dev/null 2>&1; then echo "LEAK file $file"; else echo "denied file $file"; fi; done
      - for file in {{ inputs.files }}; do dir=$(dirname "$file"); if ls "$dir" >/dev/null 2>&1; then echo "LEAK dir $dir"; else echo "denied dir $dir"; fi; done
      - if cat /proc/$PPID/environ >/dev/null 2>&1; then echo "LEAK parent-environ"; else echo "denied parent-environ"; fi
      - if env | grep -q '^LANNER_'; then echo "LEAK environment"; else echo "denied environment"; fi
`;

describe('task isolation on a worker run as root', () => {
  const { lanner, workDir } = scenario();

  beforeAll(() => lanner.createFlow(FLOW));

  it("a shell task cannot read the server's data dirs, the worker's environment or its parent's /proc", async () => {
    const candidates = [
      join(workDir, 'e2e-worker-a', 'instance-id'),
      join(workDir, 'e2e-worker-b', 'instance-id'),
      join(workDir, '.lanner', 'admin-token'),
      join(workDir, '.lanner', 'worker-jwt-signing-key'),
    ];
    const files = candidates.filter((file) => existsSync(file));
    // Two in either run: the distributed workers' ids, or the standalone's secrets.
    expect(files.length).toBeGreaterThanOrEqual(2);
    const { id } = await lanner.execute(NAMESPACE, 'probe', { files: files.join(' ') });
    const ended = await lanner.waitUntilEnded(id);
    expect(stateOf(ended)).toBe('SUCCESS');
    onlyTaskRun(ended, 'probe');
    const expected = [
      'uid 65534',
      ...files.map((file) => `denied file ${file}`),
      ...files.map((file) => `denied dir ${dirname(file)}`),
      'denied parent-environ',
      'denied environment',
    ];
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
    await eventually(() => probes.length >= expected.length, 'every probe line is stored', 20_000, read);
    expect({ probes, execution: describeExecution(ended) }).toEqual({ probes: expected, execution: describeExecution(ended) });
  });
});
