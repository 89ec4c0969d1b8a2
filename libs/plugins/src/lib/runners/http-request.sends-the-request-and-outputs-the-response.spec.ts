import { createTaskRunner } from '../task-runners';
import { startLoopbackServer } from '../../testing/loopback-http-server';
import { httpRequestTask, recordingContext, temporaryFolder } from '../../testing/task-fixtures';

describe('http request: sends method, headers and body, outputs code, headers and body', () => {
  const folder = temporaryFolder();
  let server: Awaited<ReturnType<typeof startLoopbackServer>>;
  beforeAll(async () => {
    server = await startLoopbackServer((request, response) => {
      if (request.url === '/big') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end('x'.repeat(5000));
        return;
      }
      if (request.url === '/slow') return; // never answers
      response.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'r-1' });
      response.end(JSON.stringify({ created: true }));
    });
  });
  afterAll(async () => {
    await server.close();
    folder.remove();
  });

  it('posts a map body as JSON with the given headers', async () => {
    const { context } = recordingContext({ workingDirectory: folder.path });
    const task = httpRequestTask(`${server.url}/runs`, {
      method: 'post',
      headers: { 'X-Team': 'data' },
      body: { region: 'eu', days: [1, 2] },
    });

    const outcome = await createTaskRunner().run(task, context);

    expect(outcome.state).toBe('SUCCESS');
    expect(outcome.outputs).toMatchObject({ code: 201, body: '{"created":true}', headers: { 'x-request-id': ['r-1'] } });
    const sent = server.received.at(-1);
    expect(sent?.method).toBe('POST');
    expect(sent?.headers['x-team']).toBe('data');
    expect(sent?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(sent?.body ?? '')).toEqual({ region: 'eu', days: [1, 2] });
  });

  it('sends a form when the content type asks for one', async () => {
    const { context } = recordingContext({ workingDirectory: folder.path });
    const task = httpRequestTask(`${server.url}/form`, {
      method: 'POST',
      contentType: 'application/x-www-form-urlencoded',
      body: { q: 'a b', n: 2 },
    });

    await createTaskRunner().run(task, context);

    expect(server.received.at(-1)?.body).toBe('q=a+b&n=2');
  });

  it('fails when the body is larger than the cap instead of keeping it all', async () => {
    const { context } = recordingContext({ workingDirectory: folder.path });

    const outcome = await createTaskRunner({ http: { maxResponseBodyBytes: 1000 } }).run(
      httpRequestTask(`${server.url}/big`),
      context,
    );

    expect(outcome.state).toBe('FAILED');
    expect(outcome.error).toBe('the response body is larger than 1000 bytes');
  });

  it('is aborted by the task timeout', async () => {
    const { context } = recordingContext({ workingDirectory: folder.path });

    const outcome = await createTaskRunner().run(httpRequestTask(`${server.url}/slow`, { timeoutMs: 200 }), context);

    expect(outcome.state).toBe('FAILED');
    expect(outcome.error).toBe('the task timed out after 200 ms');
  });
});
