import { execFile } from 'node:child_process';
import { get, type IncomingHttpHeaders } from 'node:http';
import { resolve as resolvePath } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { uiState } from './testing/ui';

const run = promisify(execFile);

function rawStatus(baseUrl: string, path: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const url = new URL(baseUrl);
    const request = get({ host: url.hostname, port: url.port, path }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on('error', reject);
  });
}
/** A GET with exactly these headers (fetch would add its own Accept-Encoding and decode the body). */
function rawGet(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const url = new URL(baseUrl);
    const request = get({ host: url.hostname, port: url.port, path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
    });
    request.on('error', reject);
  });
}
const CHECK_API_TYPES = resolvePath(__dirname, '..', '..', 'ui', 'scripts', 'check-api-types.js');

describe('the api role serves the web UI at / and keeps the API under /api', () => {
  const { baseUrl, adminToken } = uiState();

  it('answers / and any deep link with the app page, revalidated on every load', async () => {
    for (const path of ['/', '/executions/some-id', '/flows/company.team/hello']) {
      const response = await fetch(`${baseUrl}${path}`);
      expect({
        path,
        status: response.status,
        type: response.headers.get('content-type'),
        cache: response.headers.get('cache-control'),
      }).toEqual({
        path,
        status: 200,
        type: 'text/html; charset=utf-8',
        cache: 'no-cache',
      });
      expect(await response.text()).toContain('<div id="root"></div>');
    }
  });

  it("serves the bundle's hashed assets as immutable JavaScript, and a missing asset as 404 rather than the page", async () => {
    const page = await (await fetch(`${baseUrl}/`)).text();
    const script = /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"/.exec(page)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${baseUrl}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${baseUrl}/assets/index-0000000.js`)).status).toBe(404);
    // A path that climbs out of the bundle's folder (fetch would normalise it away: sent raw).
    expect(await rawStatus(baseUrl, '/assets/..%2f..%2f..%2f..%2fpackage.json')).toBe(404);
  });

  it('sends the page and the bundle gzipped to a client that takes it, and plain to one that does not', async () => {
    const page = await (await fetch(`${baseUrl}/`)).text();
    const script = /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"/.exec(page)?.[1] as string;
    const plain = await rawGet(baseUrl, script, {});
    const gzipped = await rawGet(baseUrl, script, { 'accept-encoding': 'gzip, deflate, br' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers.vary).toBe('Accept-Encoding');
    expect(gunzipSync(gzipped.body).equals(plain.body)).toBe(true);
    expect(gzipped.body.length).toBeLessThan(plain.body.length / 2);
    const refused = await rawGet(baseUrl, script, { 'accept-encoding': 'gzip;q=0' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    const index = await rawGet(baseUrl, '/flows', { 'accept-encoding': 'gzip' });
    expect(gunzipSync(index.body).toString('utf8')).toContain('<div id="root"></div>');
  });

  it('leaves unknown API routes to the API: a problem+json 404, not the app page', async () => {
    const response = await fetch(`${baseUrl}/api/v1/main/no-such-route`, { headers: { Authorization: `Bearer ${adminToken}` } });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
  });

  it('has committed API types that match the OpenAPI document the server serves', async () => {
    const { stdout } = await run(process.execPath, [CHECK_API_TYPES], { env: { ...process.env, LANNER_API_URL: baseUrl } });
    expect(stdout).toContain('is up to date');
  });
});
