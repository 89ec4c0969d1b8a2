import { startApiForSpec, type ApiSpecFixture } from '../testing/api-spec-fixture';
import { INLINE_PARSE_MAX_BYTES } from './flow-source-parser';

// A flow of thousands of tasks takes a second or more to read. The api reads such a
// source in its parser thread, so while it does, the process keeps answering: here,
// health checks sent every 50 ms while the flow is being saved are answered before
// the flow is (with the parse on the event loop, none of them would be).

const TASKS = 9_000;
const BIG = [
  'id: nine-thousand',
  'namespace: company.big',
  'tasks:',
  ...Array.from(
    { length: TASKS },
    (_, index) => `  - { id: t${index}, type: io.kestra.plugin.core.log.Log, message: "step ${index}" }`,
  ),
].join('\n');

let api: ApiSpecFixture;

beforeAll(async () => {
  api = await startApiForSpec();
}, 120_000);

afterAll(async () => {
  await api?.close();
});

describe('flow sources too large to read in place are read off the event loop', () => {
  it('keeps answering health checks while a 9,000-task flow is read, and stores it whole', async () => {
    expect(Buffer.byteLength(BIG)).toBeGreaterThan(INLINE_PARSE_MAX_BYTES);
    expect(Buffer.byteLength(BIG)).toBeLessThan(1024 * 1024);
    // `validate` only reads the body and parses it: what the probes see is the parse.
    let validated = false;
    let answeredWhileReading = 0;
    const validation = fetch(`${api.baseUrl}/api/v1/main/flows/validate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.adminToken}`, 'content-type': 'application/x-yaml' },
      body: BIG,
    }).then(async (response) => {
      validated = true;
      return { status: response.status, problems: (await response.json()) as unknown[] };
    });
    const probes = (async () => {
      while (!validated) {
        const health = await fetch(`${api.baseUrl}/health/live`);
        if (!validated && health.status === 200) answeredWhileReading += 1;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const answer = await validation;
    await probes;
    expect(answer).toEqual({ status: 200, problems: [] });
    expect(answeredWhileReading).toBeGreaterThanOrEqual(5);

    const saved = await fetch(`${api.baseUrl}/api/v1/main/flows`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.adminToken}`, 'content-type': 'application/x-yaml' },
      body: BIG,
    });
    expect(saved.status).toBe(201);
    const stored = await api.repositories.flows.getLatest('main', 'company.big', 'nine-thousand');
    expect((stored.definition as { tasks: unknown[] }).tasks).toHaveLength(TASKS);
  }, 120_000);

  it('reports the problems of a large invalid flow with their YAML paths, as a small one would', async () => {
    const broken = BIG.replace(
      '  - { id: t4500, type: io.kestra.plugin.core.log.Log, message: "step 4500" }',
      '  - { id: t4500, type: io.kestra.plugin.core.log.Nope }',
    );
    const response = await fetch(`${api.baseUrl}/api/v1/main/flows/validate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.adminToken}`, 'content-type': 'application/x-yaml' },
      body: broken,
    });
    expect(response.status).toBe(200);
    const problems = (await response.json()) as { path: string; message: string; line?: number }[];
    expect(problems).toEqual([expect.objectContaining({ path: 'tasks[4500].type', line: 4504 })]);
  }, 60_000);
});
