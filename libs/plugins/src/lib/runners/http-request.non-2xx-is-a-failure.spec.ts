import { createTaskRunner } from '../task-runners';
import { startLoopbackServer } from '../../testing/loopback-http-server';
import { httpRequestTask, recordingContext, temporaryFolder } from '../../testing/task-fixtures';

describe('http request: a non-2xx response is a failure', () => {
  const folder = temporaryFolder();
  let server: Awaited<ReturnType<typeof startLoopbackServer>>;
  beforeAll(async () => {
    server = await startLoopbackServer((_request, response) => {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{"error":"no such report"}');
    });
  });
  afterAll(async () => {
    await server.close();
    folder.remove();
  });

  it('fails with the response code and still gives code, headers and body', async () => {
    const { context } = recordingContext({ workingDirectory: folder.path });

    const outcome = await createTaskRunner().run(httpRequestTask(`${server.url}/reports/eu`), context);

    expect(outcome.state).toBe('FAILED');
    expect(outcome.error).toBe('HTTP request failed with response code 404');
    expect(outcome.outputs).toMatchObject({
      code: 404,
      body: '{"error":"no such report"}',
      headers: { 'content-type': ['application/json'] },
    });
  });

  it('fails with the connection error when nothing listens', async () => {
    const { context } = recordingContext({ workingDirectory: folder.path });
    const closed = await startLoopbackServer(() => undefined);
    await closed.close();

    const outcome = await createTaskRunner().run(httpRequestTask(closed.url), context);

    expect(outcome.state).toBe('FAILED');
    expect(outcome.error).toMatch(/ECONNREFUSED/);
  });
});
