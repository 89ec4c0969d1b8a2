import { startLoopbackServer } from '../../testing/loopback-http-server';
import { runHttpPoll } from './http-poll.runner';

describe("an HTTP polling trigger's poll (run on a worker)", () => {
  let version = 'v1';
  let server: Awaited<ReturnType<typeof startLoopbackServer>>;
  beforeAll(async () => {
    server = await startLoopbackServer((request, response) => {
      if (request.url === '/missing') {
        response.writeHead(404);
        response.end('gone');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json', 'x-version': version });
      response.end(JSON.stringify({ version }));
    });
  });
  afterAll(() => server.close());
  const context = () => ({ signal: new AbortController().signal, now: new Date(), secrets: () => undefined });

  it('fires on any status below 400 with the default condition, and outputs the response', async () => {
    const ok = await runHttpPoll(
      { uri: `${server.url}/state`, method: 'GET', responseCondition: '{{ response.statusCode < 400 }}' },
      context(),
    );
    expect(ok).toEqual({
      state: 'SUCCESS',
      outputs: {
        fire: true,
        uri: `${server.url}/state`,
        code: 200,
        headers: expect.objectContaining({ 'x-version': ['v1'] }),
        body: '{"version":"v1"}',
      },
    });
    const missing = await runHttpPoll(
      { uri: `${server.url}/missing`, method: 'GET', responseCondition: '{{ response.statusCode < 400 }}' },
      context(),
    );
    expect(missing.state).toBe('SUCCESS');
    expect(missing.outputs).toMatchObject({ fire: false, code: 404, body: 'gone' });
  });

  it('renders the condition against the body and headers: it holds only once the endpoint changed', async () => {
    const poll = {
      uri: `${server.url}/state`,
      method: 'POST',
      headers: { 'x-team': 'ops' },
      body: '{"ask":"version"}',
      responseCondition: "{{ json(response.body).version != 'v1' and response.headers['x-version'][0] != 'v1' }}",
    };
    version = 'v1';
    expect((await runHttpPoll(poll, context())).outputs['fire']).toBe(false);
    version = 'v2';
    expect((await runHttpPoll(poll, context())).outputs).toMatchObject({ fire: true, body: '{"version":"v2"}' });
    const sent = server.received.at(-1);
    expect(sent).toMatchObject({ method: 'POST', body: '{"ask":"version"}' });
    expect(sent?.headers['x-team']).toBe('ops');
  });

  it('fails, naming the property, when the endpoint cannot be reached or the condition does not render', async () => {
    const unreachable = await runHttpPoll(
      { uri: 'http://127.0.0.1:1/x', method: 'GET', responseCondition: '{{ true }}' },
      context(),
    );
    expect(unreachable.state).toBe('FAILED');
    expect(unreachable.state === 'FAILED' && unreachable.error).toMatch(/^the poll of the HTTP trigger failed: /);
    const broken = await runHttpPoll(
      { uri: `${server.url}/state`, method: 'GET', responseCondition: '{{ response.statusCode < }}' },
      context(),
    );
    expect(broken.state === 'FAILED' && broken.error).toMatch(/^responseCondition: /);
    const secret = await runHttpPoll(
      { uri: "{{ secret('NO_SUCH') }}", method: 'GET', responseCondition: '{{ true }}' },
      context(),
    );
    expect(secret.state === 'FAILED' && secret.error).toMatch(/uri: secret 'NO_SUCH' is not defined on this worker/);
  });
});
