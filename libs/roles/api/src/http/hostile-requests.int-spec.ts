import { startApiForSpec, type ApiSpecFixture } from '../testing/api-spec-fixture';

// Requests that reached PostgreSQL (or a decoder) unchecked and came back as
// 500s: each must now be a 4xx problem naming what is wrong and where, against
// the real api role on a real PostgreSQL.

const TENANT = 'main';
const FLOW_YAML = `id: hello
namespace: company.team
inputs:
  - { id: who, type: STRING, defaults: world }
tasks:
  - id: say
    type: io.kestra.plugin.core.log.Log
    message: "hello {{ inputs.who }}"
`;

let api: ApiSpecFixture;

interface Answer {
  readonly status: number;
  readonly contentType: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- problems are inspected field by field
  readonly json: any;
  readonly text: string;
}

async function call(
  method: string,
  path: string,
  options: { body?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const response = await fetch(`${api.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${api.adminToken}`, ...options.headers },
    body: options.body,
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', json, text };
}

const runFlow = (body: string, headers: Record<string, string> = {}) =>
  call('POST', `/api/v1/${TENANT}/executions/company.team/hello`, {
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });

/** A problem+json answer with this status that names `path` among its errors. */
function expectProblemAt(answer: Answer, status: number, path: string): void {
  expect({ status: answer.status, contentType: answer.contentType }).toEqual({
    status,
    contentType: expect.stringContaining('application/problem+json'),
  });
  expect(answer.json.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  // What PostgreSQL or the runtime would have said must not come through.
  expect(answer.text).not.toMatch(/22021|unsupported Unicode|invalid byte sequence|Prisma|\.ts:\d+|node_modules/);
}

beforeAll(async () => {
  api = await startApiForSpec();
  const created = await call('POST', `/api/v1/${TENANT}/flows`, {
    body: FLOW_YAML,
    headers: { 'content-type': 'application/x-yaml' },
  });
  expect(created.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await api?.close();
}, 60_000);

describe('text PostgreSQL cannot store', () => {
  it('refuses a NUL in a path segment with a 400 naming the path parameter', async () => {
    expectProblemAt(await call('GET', `/api/v1/${TENANT}/flows/company.team/hel%00lo`), 400, 'id');
    expectProblemAt(await call('GET', `/api/v1/${TENANT}/executions/abc%00def`), 400, 'id');
    expectProblemAt(await call('GET', `/api/v1/${TENANT}/logs/abc%00def`), 400, 'executionId');
    expectProblemAt(await call('GET', '/api/v1/ma%00in/flows/search'), 400, 'tenant');
  });

  it('refuses a NUL in a query value with a 400 naming the query parameter', async () => {
    expectProblemAt(await call('GET', `/api/v1/${TENANT}/flows/search?namespace=company%00team`), 400, 'namespace');
    expectProblemAt(await call('GET', `/api/v1/${TENANT}/executions/search?flowId=a%00b`), 400, 'flowId');
  });

  it('refuses a NUL or a lone surrogate in inputs and labels with a 400 naming the JSON path', async () => {
    expectProblemAt(await runFlow('{"inputs":{"who":"a\\u0000b"}}'), 400, 'inputs.who');
    expectProblemAt(await runFlow('{"inputs":{"who":"a\\ud800b"}}'), 400, 'inputs.who');
    expectProblemAt(await runFlow('{"labels":{"team":"\\udfff"}}'), 400, 'labels.team');
    expectProblemAt(await runFlow('{"labels":{"te\\u0000am":"qa"}}'), 400, 'labels');
    expectProblemAt(
      await call('POST', `/api/v1/${TENANT}/executions/company.team/hello?labels=team:%00`, {
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
      400,
      'labels',
    );
  });

  it('refuses a NUL or a lone surrogate in a flow source with a 422 naming the YAML path', async () => {
    const postYaml = (yaml: string) =>
      call('POST', `/api/v1/${TENANT}/flows`, { body: yaml, headers: { 'content-type': 'application/x-yaml' } });
    const other = FLOW_YAML.replace('id: hello', 'id: other');
    expectProblemAt(
      await postYaml(other.replace('hello {{ inputs.who }}', 'hello \\0 {{ inputs.who }}')),
      422,
      'tasks[0].message',
    );
    const withSurrogate = FLOW_YAML.replace('hello {{ inputs.who }}', 'hello \\ud800');
    expectProblemAt(
      await call('PUT', `/api/v1/${TENANT}/flows/company.team/hello`, {
        body: withSurrogate,
        headers: { 'content-type': 'application/x-yaml' },
      }),
      422,
      'tasks[0].message',
    );
    // A raw NUL in a comment: no value holds it, the source does; its line is named.
    const inComment = await postYaml(`${other}# a comment \u0000 here\n`);
    expectProblemAt(inComment, 422, '$');
    expect(inComment.json.errors[0]).toMatchObject({ line: other.split('\n').length, column: 13 });
    // The validate endpoint reports the same, and nothing was stored.
    const validated = await call('POST', `/api/v1/${TENANT}/flows/validate`, {
      body: other.replace('who }}', 'who }}\\0'),
      headers: { 'content-type': 'application/x-yaml' },
    });
    expect(validated.json).toEqual([expect.objectContaining({ path: 'tasks[0].message' })]);
    expect((await call('GET', `/api/v1/${TENANT}/flows/company.team/other`)).status).toBe(404);
    expect((await call('GET', `/api/v1/${TENANT}/flows/company.team/hello`)).json.revision).toBe(1);
  });

  it('refuses a NUL in a multipart field with a 400 naming the field', async () => {
    const form = new FormData();
    form.append('who', 'a\u0000b');
    const response = await fetch(`${api.baseUrl}/api/v1/${TENANT}/executions/company.team/hello`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.adminToken}` },
      body: form,
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { errors: unknown[] }).errors).toEqual([expect.objectContaining({ path: 'who' })]);
  });

  it('refuses a multipart part without a name with a 400, and stays up (it used to end the process)', async () => {
    const body = '--fuzz\r\nContent-Disposition: form-data\r\n\r\nno name\r\n--fuzz--\r\n';
    const answer = await call('POST', `/api/v1/${TENANT}/executions/company.team/hello`, {
      body,
      headers: { 'content-type': 'multipart/form-data; boundary=fuzz' },
    });
    expect(answer.status).toBe(400);
    expect(answer.json.detail).toContain('a field without a name');
    expect((await call('GET', `/api/v1/${TENANT}/flows/company.team/hello`)).status).toBe(200);
  });

  it('refuses a JSON body nested deeper than the API reads with a 400', async () => {
    const deep = `{"inputs":{"who":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
    const answer = await runFlow(deep);
    expect(answer.status).toBe(400);
    expect(answer.json.errors[0].message).toMatch(/nested deeper/);
  });
});

describe('bodies and numbers', () => {
  it('answers a body labelled gzip that is not gzip with a 400', async () => {
    const answer = await runFlow('{"inputs":{}}', { 'content-encoding': 'gzip' });
    expect(answer.status).toBe(400);
    expect(answer.contentType).toContain('application/problem+json');
    expect(answer.json.detail).toMatch(/encoding/i);
  });

  it('answers an unknown Content-Encoding with a 415', async () => {
    const answer = await runFlow('{"inputs":{}}', { 'content-encoding': 'snappy' });
    expect(answer.status).toBe(415);
    expect(answer.contentType).toContain('application/problem+json');
  });

  it('refuses an out-of-range revision, page or size with a 400 naming the parameter', async () => {
    expectProblemAt(await call('GET', `/api/v1/${TENANT}/flows/company.team/hello?revision=9007199254740991`), 400, 'revision');
    expectProblemAt(await call('GET', `/api/v1/${TENANT}/flows/company.team/hello?revision=1e400`), 400, 'revision');
    expectProblemAt(await call('GET', `/api/v1/${TENANT}/flows/search?page=9007199254740991`), 400, 'page');
    expectProblemAt(await call('GET', `/api/v1/${TENANT}/executions/search?page=99999999999&size=200`), 400, 'page');
  });
});
