import type { ExecutionRecordState } from '@lanner/model';
import { startApiForSpec, type ApiSpecFixture } from '../testing/api-spec-fixture';

// The dashboard's route and the executions list's filters over HTTP, on the api role
// in-process against the real PostgreSQL: the figures come back as the repository
// aggregated them, and a bad period is a problem naming the parameter.

const TENANT = 'main';
let api: ApiSpecFixture;
let next = 0;

async function get(path: string) {
  const response = await fetch(`${api.baseUrl}/api/v1/${TENANT}${path}`, {
    headers: { authorization: `Bearer ${api.adminToken}` },
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are inspected field by field
  return { status: response.status, json: (await response.json()) as any };
}

async function stored(
  flowId: string,
  state: ExecutionRecordState,
  durationMs: number | null,
  labels: Record<string, string> = {},
) {
  const id = `api-stats-${++next}`;
  const created = await api.repositories.executions.create(TENANT, {
    id,
    namespace: 'company.stats',
    flowId,
    flowRevision: 1,
    state: 'CREATED',
    stateHistories: [{ state: 'CREATED', date: new Date() }],
    labels,
  });
  const startedAt = new Date();
  await api.repositories.executions.update(TENANT, id, created.version, {
    state,
    stateHistories: [{ state, date: startedAt }],
    startedAt,
    endedAt: durationMs === null ? null : new Date(startedAt.getTime() + durationMs),
  });
  return id;
}

beforeAll(async () => {
  api = await startApiForSpec();
  await stored('nightly', 'SUCCESS', 2_000, { team: 'data' });
  await stored('nightly', 'SUCCESS', 4_000, { team: 'data', env: 'prod' });
  await stored('nightly', 'FAILED', 6_000, { team: 'ops' });
  await stored('hourly', 'RUNNING', null);
}, 120_000);

afterAll(async () => {
  await api?.close();
});

describe('GET /executions/stats', () => {
  it('answers the last day by default: counts, success rate, percentiles, timeline and flow lists', async () => {
    const { status, json } = await get('/executions/stats');
    expect(status).toBe(200);
    expect(new Date(json.to).getTime() - new Date(json.from).getTime()).toBe(24 * 3_600_000);
    expect(json).toMatchObject({ bucketSeconds: 15 * 60, total: 4, ended: 3, succeeded: 2, failed: 1 });
    expect(json.successRate).toBeCloseTo(2 / 3, 10);
    expect(json.durations).toEqual({ p50Ms: 4_000, p95Ms: 5_800 });
    expect(json.timeline).toHaveLength(96);
    const counted = json.timeline.reduce((sums: Record<string, number>, bucket: { counts: Record<string, number> }) => {
      for (const [state, n] of Object.entries(bucket.counts)) sums[state] = (sums[state] ?? 0) + n;
      return sums;
    }, {});
    expect(counted).toEqual({ SUCCESS: 2, FAILED: 1, RUNNING: 1 });
    expect(json.slowestFlows).toEqual([
      { namespace: 'company.stats', flowId: 'nightly', executions: 3, p50Ms: 4_000, p95Ms: 5_800, maxMs: 6_000 },
    ]);
    expect(json.failingFlows).toMatchObject([{ namespace: 'company.stats', flowId: 'nightly', failed: 1, executions: 3 }]);
  });

  it('aggregates only the period and the namespace asked for', async () => {
    const past = await get('/executions/stats?from=2020-01-01T00:00:00Z&to=2020-01-08T00:00:00Z');
    expect(past.status).toBe(200);
    expect(past.json).toMatchObject({ total: 0, successRate: null, durations: null, bucketSeconds: 3600 });
    expect(past.json.timeline).toHaveLength(168);
    const elsewhere = await get('/executions/stats?namespace=company.other');
    expect(elsewhere.json.total).toBe(0);
  });

  it('refuses a reversed period, a date that is not one and a period over three years, naming the parameter', async () => {
    const reversed = await get('/executions/stats?from=2026-12-02T00:00:00Z&to=2026-12-01T00:00:00Z');
    expect(reversed.status).toBe(400);
    expect(reversed.json.errors).toEqual([{ path: 'from', message: 'must be before `to`' }]);
    const notADate = await get('/executions/stats?to=yesterday');
    expect(notADate.status).toBe(400);
    expect(notADate.json.errors).toEqual([{ path: 'to', message: expect.stringContaining('ISO-8601') }]);
    const tooLong = await get('/executions/stats?from=2000-01-01T00:00:00Z&to=2026-01-01T00:00:00Z');
    expect(tooLong.status).toBe(400);
    expect(tooLong.json.errors[0].path).toBe('from');
  });
});

describe('GET /executions/search with labels and a period', () => {
  it('lists the executions carrying every label asked for', async () => {
    const byTeam = await get('/executions/search?labels=team:data');
    expect(byTeam.json.total).toBe(2);
    const both = await get('/executions/search?labels=team:data&labels=env:prod');
    expect(both.json.results.map((e: { labels: unknown }) => e.labels)).toEqual([{ team: 'data', env: 'prod' }]);
    const bad = await get('/executions/search?labels=nokey');
    expect(bad.status).toBe(400);
    expect(bad.json.errors).toEqual([{ path: 'labels[0]', message: expect.stringContaining('key:value') }]);
  });

  it('lists the executions created in the period', async () => {
    const now = Date.now();
    const recent = await get(`/executions/search?from=${new Date(now - 3_600_000).toISOString()}`);
    expect(recent.json.total).toBe(4);
    const before = await get(`/executions/search?to=${new Date(now - 3_600_000).toISOString()}`);
    expect(before.json.total).toBe(0);
  });
});
