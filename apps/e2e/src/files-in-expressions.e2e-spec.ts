import { onlyTaskRun, outputsOf, scenario, stateOf } from './harness/scenario';

// read(), fileSize() and fileExists() resolve on the worker (the executor only sends the
// URI), and a Return value over LANNER_STORAGE_OUTPUT_INLINE_MAX_BYTES (1 MiB by default)
// is stored as a file and output as its URI: here a 5 MB value, more than a result frame
// (4 MiB) could carry, goes from a shell task's output file through read() into a
// Return and on to the next task.
const NAMESPACE = 'e2e.files.expressions';
const BIG = 5_000_000;

const FLOW = `
id: read-a-file
namespace: ${NAMESPACE}
tasks:
  - id: write
    type: io.kestra.plugin.scripts.shell.Commands
    outputFiles:
      - small.csv
      - big.txt
    commands:
      - printf 'id,name\\n1,ada\\n' > small.csv
      - head -c ${BIG} /dev/zero | tr '\\\\0' 'x' > big.txt
  - id: small
    type: io.kestra.plugin.core.debug.Return
    format: "{{ read(outputs.write.outputFiles['small.csv']) | trim }} ({{ fileSize(outputs.write.outputFiles['small.csv']) }} bytes)"
  - id: big
    type: io.kestra.plugin.core.debug.Return
    format: "{{ read(outputs.write.outputFiles['big.txt']) }}"
  - id: after
    type: io.kestra.plugin.core.debug.Return
    format: "{{ fileSize(outputs.big.value) }} {{ fileExists(outputs.big.value) }} {{ read(outputs.big.value) | length }}"
`;

describe('files in expressions, and outputs too large for a message', () => {
  const { lanner } = scenario();

  beforeAll(() => lanner.createFlow(FLOW));

  it('reads files on the worker and stores a 5 MB Return value as a file the next task reads', async () => {
    const { id } = await lanner.execute(NAMESPACE, 'read-a-file');
    const ended = await lanner.waitUntilEnded(id, 90_000);

    expect(stateOf(ended)).toBe('SUCCESS');
    expect(outputsOf(onlyTaskRun(ended, 'small'))).toEqual({ value: 'id,name\n1,ada (14 bytes)' });
    const big = onlyTaskRun(ended, 'big');
    expect(outputsOf(big)).toEqual({
      value: `kestra:///e2e/files/expressions/read-a-file/executions/${id}/tasks/big/${big.id}/value.txt`,
    });
    expect(outputsOf(onlyTaskRun(ended, 'after'))).toEqual({ value: `${BIG} true ${BIG}` });
  });

  it("fails the task, naming the URI, when read() is given another namespace's file", async () => {
    await lanner.createFlow(`
id: read-foreign
namespace: e2e.files.elsewhere
tasks:
  - id: read
    type: io.kestra.plugin.core.debug.Return
    format: "{{ read('kestra:///e2e/files/expressions/read-a-file/executions/x/tasks/write/y/small.csv') }}"
`);
    const { id } = await lanner.execute('e2e.files.elsewhere', 'read-foreign');
    const ended = await lanner.waitUntilEnded(id, 60_000);
    expect(stateOf(ended)).toBe('FAILED');
    expect(JSON.stringify(onlyTaskRun(ended, 'read'))).toContain(
      "read(): kestra:///e2e/files/expressions/read-a-file/executions/x/tasks/write/y/small.csv is outside namespace 'e2e.files.elsewhere'",
    );
  });
});
