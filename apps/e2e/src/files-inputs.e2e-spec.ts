import { Execution, onlyTaskRun, outputsOf, scenario, stateOf } from './harness/scenario';

// FILE inputs through the API: the file part of a multipart run request is streamed to
// internal storage, the input holds its kestra:/// URI, a task gets the file in its
// working directory, and the execution's files download (and preview) through the API,
// only by the execution's own tenant.
const NAMESPACE = 'e2e.files.inputs';
const CSV = 'id,name\n1,ada\n2,grace\n3,hopper\n';

const FLOW = `
id: count-lines
namespace: ${NAMESPACE}
inputs:
  - { id: data, type: FILE }
tasks:
  - id: count
    type: io.kestra.plugin.scripts.shell.Commands
    inputFiles:
      data.csv: "{{ inputs.data }}"
    outputFiles:
      - summary.json
    commands:
      - echo "{\\"lines\\":$(wc -l < data.csv)}" > summary.json
      - echo "::{\\"outputs\\":{\\"lines\\":$(wc -l < data.csv)}}::"
`;

describe('FILE inputs and execution files through the API', () => {
  const { lanner } = scenario();
  let ended: Execution;

  beforeAll(async () => {
    await lanner.createFlow(FLOW);
    const form = new FormData();
    form.append('data', new Blob([CSV], { type: 'text/csv' }), 'people.csv');
    const answer = await lanner.raw('POST', `/executions/${NAMESPACE}/count-lines`, form);
    expect(answer.status).toBe(200);
    const created = (await answer.json()) as Execution;
    ended = await lanner.waitUntilEnded(created.id, 60_000);
  });

  const download = (path: string, client = lanner, id = ended.id) =>
    client.raw('GET', `/executions/${id}/file?path=${encodeURIComponent(path)}`);

  it('stores the uploaded file under the execution and gives its URI to the task, which reads it', async () => {
    expect(stateOf(ended)).toBe('SUCCESS');
    const uri = `kestra:///e2e/files/inputs/count-lines/executions/${ended.id}/inputs/data/people.csv`;
    expect((ended as unknown as { inputs: Record<string, unknown> }).inputs).toEqual({ data: uri });
    expect(outputsOf(onlyTaskRun(ended, 'count'))).toEqual(expect.objectContaining({ vars: { lines: 4 } }));

    const file = await download(uri);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toContain('text/csv');
    expect(await file.text()).toBe(CSV);
  });

  it("downloads and previews the task's output file", async () => {
    const summary = (outputsOf(onlyTaskRun(ended, 'count')) as { outputFiles: Record<string, string> }).outputFiles[
      'summary.json'
    ];
    const file = await download(summary ?? '');
    expect(file.status).toBe(200);
    expect(await file.json()).toEqual({ lines: 4 });
    const preview = await lanner.raw('GET', `/executions/${ended.id}/file/preview?path=${encodeURIComponent(summary ?? '')}`);
    expect(preview.status).toBe(200);
    expect(await preview.json()).toEqual({ type: 'json', content: '{"lines":4}\n', truncated: false });
  });

  it("answers 404 for another tenant's file, and for a path outside the execution", async () => {
    const uri = `kestra:///e2e/files/inputs/count-lines/executions/${ended.id}/inputs/data/people.csv`;
    const otherTenant = await download(uri, lanner.forTenant('e2e-other-tenant'));
    expect(otherTenant.status).toBe(404);
    expect(await otherTenant.text()).not.toContain('hopper');
    const outside = await download(`kestra:///e2e/files/inputs/count-lines/executions/not-this-one/inputs/data/people.csv`);
    expect(outside.status).toBe(404);
    const traversal = await download(`kestra:///e2e/files/inputs/count-lines/executions/${ended.id}/../other/x.csv`);
    expect(traversal.status).toBe(400);
  });

  it('refuses a FILE input written as text, naming the input', async () => {
    const answer = await lanner.request('POST', `/executions/${NAMESPACE}/count-lines`, {
      json: { inputs: { data: 'kestra:///somewhere/else/x.csv' } },
    });
    expect(answer.status).toBe(422);
    expect(JSON.stringify(answer.body)).toContain('is a FILE input: send it as a file part of a multipart body');
  });
});
