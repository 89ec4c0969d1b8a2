import { startApiForSpec, type ApiSpecFixture } from '../testing/api-spec-fixture';
import { FlowSourceParser } from './flow-source-parser';
import { ParsedFlowCache } from './parsed-flow-cache';

// Creating an execution uses the parse of the flow's latest revision from the api's
// cache: many executions of one revision parse its source once, and those of a revision
// the api already holds are written against it without reading the flow again (the
// insert itself checks that no newer revision exists). A new revision (saved here, or
// by another api instance straight into the database), a delete and a re-create are
// each seen by the very next execution.

const TENANT = 'main';
const flowYaml = (team: string) =>
  [
    'id: cached',
    'namespace: company.cache',
    `labels: { team: ${team} }`,
    'tasks:',
    '  - { id: say, type: io.kestra.plugin.core.log.Log, message: hi }',
    '',
  ].join('\n');

let api: ApiSpecFixture;
let parsedSources: string[];

async function call(method: string, path: string, body?: { text: string; type: string }) {
  const headers: Record<string, string> = { authorization: `Bearer ${api.adminToken}` };
  if (body !== undefined) headers['content-type'] = body.type;
  const response = await fetch(`${api.baseUrl}/api/v1/${TENANT}${path}`, { method, headers, body: body?.text });
  const text = await response.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are inspected field by field in the assertions
  return { status: response.status, json: (text === '' ? undefined : JSON.parse(text)) as any };
}

const createExecution = () => call('POST', '/executions/company.cache/cached', { text: '{}', type: 'application/json' });
const parsesOf = (team: string) => parsedSources.filter((source) => source === flowYaml(team)).length;

beforeAll(async () => {
  api = await startApiForSpec();
  const parser = api.app.get(FlowSourceParser);
  const parse = parser.parse.bind(parser);
  parsedSources = [];
  parser.parse = (source: string) => {
    parsedSources.push(source);
    return parse(source);
  };
}, 120_000);

afterAll(async () => {
  await api?.close();
});

describe('the api parses a flow once per revision, not once per execution', () => {
  it('serves executions from the cached parse and sees every new revision at once', async () => {
    expect((await call('POST', '/flows', { text: flowYaml('one'), type: 'application/x-yaml' })).status).toBe(201);
    expect(parsesOf('one')).toBe(1); // the save's own validation

    for (let i = 0; i < 5; i++) {
      const created = await createExecution();
      expect(created.status).toBe(200);
      expect(created.json).toMatchObject({ flowRevision: 1, labels: { team: 'one' } });
    }
    // One parse for the five executions (without the cache: five).
    expect(parsesOf('one')).toBe(2);

    // Another api instance saves revision 2: this one has heard nothing, and reads it anyway.
    await api.repositories.flows.saveRevision(TENANT, {
      namespace: 'company.cache',
      flowId: 'cached',
      source: flowYaml('two'),
      definition: {},
    });
    for (let i = 0; i < 3; i++) {
      expect((await createExecution()).json).toMatchObject({ flowRevision: 2, labels: { team: 'two' } });
    }
    expect(parsesOf('two')).toBe(1);

    // Deleted here: the next execution is refused, and the re-created flow is the one used.
    expect((await call('DELETE', '/flows/company.cache/cached')).status).toBe(204);
    expect((await createExecution()).status).toBe(404);
    expect((await call('POST', '/flows', { text: flowYaml('three'), type: 'application/x-yaml' })).status).toBe(201);
    expect((await createExecution()).json).toMatchObject({ flowRevision: 4, labels: { team: 'three' } });
  }, 60_000);

  it('does not read the flow again for a revision it holds, and still refuses a flow deleted by another instance', async () => {
    const yaml = flowYaml('four').replace('id: cached', 'id: held');
    expect((await call('POST', '/flows', { text: yaml, type: 'application/x-yaml' })).status).toBe(201);
    const flows = api.repositories.flows;
    // The cache is asked for a revision's parse only after that revision was read from the flows table.
    const cache = api.app.get(ParsedFlowCache);
    const lookUp = cache.get.bind(cache);
    let reads = 0;
    cache.get = (...args: Parameters<typeof lookUp>) => {
      reads += 1;
      return lookUp(...args);
    };
    try {
      const run = () => call('POST', '/executions/company.cache/held', { text: '{}', type: 'application/json' });
      expect((await run()).json).toMatchObject({ flowRevision: 1, labels: { team: 'four' } });
      const afterFirst = reads;
      for (let i = 0; i < 4; i++) expect((await run()).json).toMatchObject({ flowRevision: 1 });
      // The four were written against the held revision, checked in the insert itself.
      expect(reads).toBe(afterFirst);

      // Another instance saves revision 2: the insert against revision 1 writes nothing, the flow is read again.
      await flows.saveRevision(TENANT, {
        namespace: 'company.cache',
        flowId: 'held',
        source: yaml.replace('four', 'five'),
        definition: {},
      });
      expect((await run()).json).toMatchObject({ flowRevision: 2, labels: { team: 'five' } });
      expect(reads).toBe(afterFirst + 1);

      // Another instance deletes it: refused here at once.
      await flows.softDelete(TENANT, 'company.cache', 'held');
      expect((await run()).status).toBe(404);
    } finally {
      cache.get = lookUp;
    }
  }, 60_000);
});
