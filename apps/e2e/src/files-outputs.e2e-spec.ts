import { onlyTaskRun, outputsOf, scenario, stateOf } from './harness/scenario';

// Files between tasks on whichever worker takes each task (standalone: its own worker and
// its local storage folder; distributed: the run's shared store): out.csv written by one
// shell task is read by the next through its kestra:/// URI, and a file of another
// namespace is refused by name.
const NAMESPACE = 'e2e.files.any';

const FLOW = `
id: pass-a-file
namespace: ${NAMESPACE}
tasks:
  - id: write
    type: io.kestra.plugin.scripts.shell.Commands
    outputFiles:
      - out.csv
    commands:
      - printf 'id,name\\n1,ada\\n2,grace\\n' > out.csv
  - id: read
    type: io.kestra.plugin.scripts.node.Script
    inputFiles:
      data.csv: "{{ outputs.write.outputFiles['out.csv'] }}"
    script: |
      const rows = require('fs').readFileSync('data.csv', 'utf8').trim().split('\\n');
      console.log('::' + JSON.stringify({ outputs: { rows: rows.length, last: rows[rows.length - 1] } }) + '::');
`;

describe('files between tasks on any worker', () => {
  const { lanner } = scenario();

  beforeAll(() => lanner.createFlow(FLOW));

  it("gives the writer's out.csv to the next task through its kestra:/// URI", async () => {
    const { id } = await lanner.execute(NAMESPACE, 'pass-a-file');
    const ended = await lanner.waitUntilEnded(id, 60_000);

    expect(stateOf(ended)).toBe('SUCCESS');
    const write = onlyTaskRun(ended, 'write');
    expect(outputsOf(write)).toEqual(
      expect.objectContaining({
        outputFiles: { 'out.csv': `kestra:///e2e/files/any/pass-a-file/executions/${id}/tasks/write/${write.id}/out.csv` },
      }),
    );
    expect(outputsOf(onlyTaskRun(ended, 'read'))).toEqual(expect.objectContaining({ vars: { rows: 3, last: '2,grace' } }));
  });

  it("fails the reader, naming the URI, when the file is another namespace's", async () => {
    await lanner.createFlow(`
id: foreign-file
namespace: e2e.files.foreign
tasks:
  - id: read
    type: io.kestra.plugin.scripts.shell.Commands
    inputFiles:
      data.csv: "kestra:///e2e/files/pass-a-file/executions/x/tasks/write/y/out.csv"
    commands:
      - cat data.csv
`);
    const { id } = await lanner.execute(`e2e.files.foreign`, 'foreign-file');
    const ended = await lanner.waitUntilEnded(id, 60_000);
    expect(stateOf(ended)).toBe('FAILED');
    expect(JSON.stringify(onlyTaskRun(ended, 'read'))).toContain(
      "kestra:///e2e/files/pass-a-file/executions/x/tasks/write/y/out.csv is outside namespace 'e2e.files.foreign'",
    );
  });
});
