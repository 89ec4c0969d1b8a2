import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiForSpec, type ApiSpecFixture } from '../testing/api-spec-fixture';

// FILE inputs against the api role with a local storage folder and a 1 MiB limit: a file
// within it is stored under the new execution and downloads byte for byte; one over it
// is a 413 that leaves neither a file nor an execution behind.
const LIMIT = 1024 * 1024;
const FLOW = `id: upload
namespace: company.files
inputs:
  - { id: data, type: FILE }
  - { id: note, type: STRING, required: false }
tasks:
  - id: say
    type: io.kestra.plugin.core.log.Log
    message: "{{ inputs.data }}"
`;

let api: ApiSpecFixture;
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'lanner-api-files-'));
  api = await startApiForSpec({ storage: { kind: 'local', root: folder }, fileInputMaxBytes: LIMIT });
  const created = await fetch(`${api.baseUrl}/api/v1/main/flows`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.adminToken}`, 'content-type': 'application/x-yaml' },
    body: FLOW,
  });
  expect(created.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await api?.close();
  await rm(folder, { recursive: true, force: true });
});

async function filesUnder(path: string): Promise<string[]> {
  const entries = await readdir(path, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
}

function run(body: FormData) {
  return fetch(`${api.baseUrl}/api/v1/main/executions/company.files/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.adminToken}` },
    body,
  });
}

describe('FILE inputs of a new execution', () => {
  it('streams a file within the limit to storage and downloads it byte for byte', async () => {
    const bytes = Buffer.alloc(LIMIT - 10, 7);
    const form = new FormData();
    form.append('note', 'hello');
    form.append('data', new Blob([bytes]), 'blob.bin');
    const answer = await run(form);
    expect(answer.status).toBe(200);
    const execution = (await answer.json()) as { id: string; inputs: Record<string, string> };
    const uri = `kestra:///company/files/upload/executions/${execution.id}/inputs/data/blob.bin`;
    expect(execution.inputs).toEqual({ data: uri, note: 'hello' });

    const download = await fetch(`${api.baseUrl}/api/v1/main/executions/${execution.id}/file?path=${encodeURIComponent(uri)}`, {
      headers: { authorization: `Bearer ${api.adminToken}` },
    });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('refuses a file over the limit with 413, keeping no file and no execution', async () => {
    const before = await api.repositories.executions.search('main', { page: 1, size: 100 });
    const storedBefore = await filesUnder(folder);
    const form = new FormData();
    form.append('data', new Blob([Buffer.alloc(LIMIT + 1, 1)]), 'big.bin');
    const answer = await run(form);
    expect(answer.status).toBe(413);
    expect(await filesUnder(folder)).toEqual(storedBefore);
    const after = await api.repositories.executions.search('main', { page: 1, size: 100 });
    expect(after.total).toBe(before.total);
  });

  it('refuses a file part for an input that is not a FILE input, keeping nothing', async () => {
    const storedBefore = await filesUnder(folder);
    const form = new FormData();
    form.append('data', new Blob(['x']), 'x.txt');
    form.append('note', new Blob(['y']), 'y.txt');
    const answer = await run(form);
    expect(answer.status).toBe(422);
    expect(((await answer.json()) as { errors: unknown }).errors).toEqual([
      { path: 'inputs.note', message: 'is not a FILE input of the flow' },
    ]);
    expect(await filesUnder(folder)).toEqual(storedBefore);
  });
});
