import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiForSpec, type ApiSpecFixture } from '../testing/api-spec-fixture';

// Namespace files through the API, on a local storage folder with a 4 KiB limit: stored
// under kestra:///<namespace>/_files/, listed, downloaded byte for byte and deleted; a
// path that climbs out, a body over the limit and another tenant's file are refused.
const LIMIT = 4096;
let api: ApiSpecFixture;
let folder: string;
const base = () => `${api.baseUrl}/api/v1/main/namespaces/company.files/files`;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'lanner-api-namespace-files-'));
  api = await startApiForSpec({ storage: { kind: 'local', root: folder }, fileInputMaxBytes: LIMIT });
}, 120_000);

afterAll(async () => {
  await api?.close();
  await rm(folder, { recursive: true, force: true });
});

const auth = () => ({ authorization: `Bearer ${api.adminToken}` });
const put = (path: string, body: string | Buffer, url = base()) =>
  fetch(`${url}?path=${encodeURIComponent(path)}`, {
    method: 'PUT',
    headers: { ...auth(), 'content-type': 'application/octet-stream' },
    body,
  });

describe('namespace files through the API', () => {
  it('stores, lists, downloads and deletes a file under the namespace files folder', async () => {
    const stored = await put('scripts/hello.sh', 'echo hello\n');
    expect(stored.status).toBe(200);
    expect(await stored.json()).toEqual({
      path: 'scripts/hello.sh',
      size: 11,
      uri: 'kestra:///company/files/_files/scripts/hello.sh',
    });
    expect((await put('data.csv', 'a,b\n')).status).toBe(200);

    const listed = await fetch(`${base()}/directory`, { headers: auth() });
    expect(await listed.json()).toEqual([
      { path: 'data.csv', size: 4, uri: 'kestra:///company/files/_files/data.csv' },
      { path: 'scripts/hello.sh', size: 11, uri: 'kestra:///company/files/_files/scripts/hello.sh' },
    ]);
    const inFolder = await fetch(`${base()}/directory?path=scripts`, { headers: auth() });
    expect(((await inFolder.json()) as { path: string }[]).map((file: { path: string }) => file.path)).toEqual([
      'scripts/hello.sh',
    ]);

    const download = await fetch(`${base()}?path=scripts/hello.sh`, { headers: auth() });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(await download.text()).toBe('echo hello\n');

    expect((await fetch(`${base()}?path=scripts/hello.sh`, { method: 'DELETE', headers: auth() })).status).toBe(204);
    const gone = await fetch(`${base()}?path=scripts/hello.sh`, { headers: auth() });
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { detail: string }).detail).toBe("Namespace file 'scripts/hello.sh' does not exist");
    expect((await fetch(`${base()}?path=scripts/hello.sh`, { method: 'DELETE', headers: auth() })).status).toBe(404);
  });

  it('refuses a path that climbs out of the folder, naming the query parameter', async () => {
    const answer = await put('../secrets.txt', 'x');
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { errors: unknown }).errors).toEqual([
      { path: 'path', message: "file name '../secrets.txt': '..' is not allowed as a path segment" },
    ]);
  });

  it('refuses a JSON body, which is not the bytes of a file, with 415', async () => {
    const answer = await fetch(`${base()}?path=a.json`, {
      method: 'PUT',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(answer.status).toBe(415);
    expect((await fetch(`${base()}?path=a.json`, { headers: auth() })).status).toBe(404);
  });

  it('refuses a body over the limit with 413 and keeps nothing', async () => {
    const answer = await put('big.bin', Buffer.alloc(LIMIT + 1, 1));
    expect(answer.status).toBe(413);
    expect((await fetch(`${base()}?path=big.bin`, { headers: auth() })).status).toBe(404);
  });

  it("keeps a tenant's namespace files out of another tenant's reach", async () => {
    expect((await put('mine.txt', 'tenant main')).status).toBe(200);
    const made = await fetch(`${api.baseUrl}/api/v1/instance/tenants`, {
      method: 'POST',
      headers: { ...auth(), 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: 'other' }),
    });
    expect(made.status).toBe(201);
    const elsewhere = `${api.baseUrl}/api/v1/other/namespaces/company.files/files`;
    expect((await fetch(`${elsewhere}?path=mine.txt`, { headers: auth() })).status).toBe(404);
    expect(await (await fetch(`${elsewhere}/directory`, { headers: auth() })).json()).toEqual([]);
  });
});
