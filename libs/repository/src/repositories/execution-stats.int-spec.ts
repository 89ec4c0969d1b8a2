import type { ExecutionRecordState } from '@lanner/model';
import { connectClient } from '../connection';
import { useTestRepositories } from '../testing/test-database';

// The dashboard's aggregates on a real PostgreSQL: executions are stored with chosen
// creation, start and end times, and the figures are checked against what a person
// counting them by hand finds.

describe('ExecutionRepository.stats', () => {
  const fixture = useTestRepositories();
  const from = new Date('2026-11-30T00:00:00.000Z');
  const to = new Date('2026-11-30T03:00:00.000Z');
  const at = (minutes: number) => new Date(from.getTime() + minutes * 60_000);
  let next = 0;

  /** Stores an execution of `flowId` created `minutes` after `from`, in `state`, that ran `durationMs` when given. */
  async function stored(
    flowId: string,
    minutes: number,
    state: ExecutionRecordState,
    durationMs?: number,
    namespace = 'company.team',
  ) {
    const id = `stats-${++next}`;
    const created = await fixture.repositories.executions.create('main', {
      id,
      namespace,
      flowId,
      flowRevision: 1,
      state: 'CREATED',
      stateHistories: [{ state: 'CREATED', date: at(minutes) }],
    });
    const startedAt = at(minutes);
    await fixture.repositories.executions.update('main', id, created.version, {
      state,
      stateHistories: [{ state, date: startedAt }],
      startedAt,
      endedAt: durationMs === undefined ? null : new Date(startedAt.getTime() + durationMs),
    });
    const client = await connectClient(fixture.database.url);
    try {
      await client.query('UPDATE executions SET created_at = $1 WHERE id = $2', [at(minutes), id]);
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    // Hour 0: three of 'fast' (two succeed, one fails); hour 1: 'slow' succeeds twice and
    // fails once; hour 2: one 'fast' still running. Outside the period: one before, one at `to`.
    await stored('fast', 5, 'SUCCESS', 1_000);
    await stored('fast', 10, 'SUCCESS', 2_000);
    await stored('fast', 20, 'FAILED', 3_000);
    await stored('slow', 65, 'SUCCESS', 60_000);
    await stored('slow', 70, 'SUCCESS', 120_000);
    await stored('slow', 80, 'FAILED', 100_000);
    await stored('fast', 130, 'RUNNING');
    await stored('fast', -1, 'FAILED', 5_000);
    await stored('fast', 180, 'FAILED', 5_000);
    // Another namespace, and another tenant, in the period.
    await stored('other', 15, 'FAILED', 9_000, 'company.other');
    await stored('child', 16, 'SUCCESS', 4_000, 'company.team.child');
  });

  it('counts per state in each bucket, the success rate and the duration percentiles of the period', async () => {
    const stats = await fixture.repositories.executions.stats('main', {
      from,
      to,
      namespace: 'company.team',
      bucketSeconds: 3600,
      topFlows: 5,
    });
    expect(stats.total).toBe(8);
    expect(stats.ended).toBe(7);
    expect(stats.succeeded).toBe(5);
    expect(stats.failed).toBe(2);
    expect(stats.successRate).toBeCloseTo(5 / 7, 10);
    // Durations 1, 2, 3, 4, 60, 100, 120 s: the median is 4 s, p95 interpolates between 100 and 120 s.
    expect(stats.durations).toEqual({ p50Ms: 4_000, p95Ms: 114_000 });
    expect(stats.timeline.map((bucket) => [bucket.start.toISOString(), bucket.counts])).toEqual([
      ['2026-11-30T00:00:00.000Z', { SUCCESS: 3, FAILED: 1 }],
      ['2026-11-30T01:00:00.000Z', { SUCCESS: 2, FAILED: 1 }],
      ['2026-11-30T02:00:00.000Z', { RUNNING: 1 }],
    ]);
  });

  it('names the slowest flows by p95 and the failing flows by failures', async () => {
    const stats = await fixture.repositories.executions.stats('main', { from, to, bucketSeconds: 3600, topFlows: 2 });
    expect(stats.slowestFlows.map((flow) => [flow.flowId, flow.executions, flow.p50Ms, flow.maxMs])).toEqual([
      ['slow', 3, 100_000, 120_000],
      ['other', 1, 9_000, 9_000],
    ]);
    expect(
      stats.failingFlows.map((flow) => [flow.flowId, flow.failed, flow.executions, flow.lastFailedAt.toISOString()]),
    ).toEqual([
      ['slow', 1, 3, '2026-11-30T01:20:00.000Z'],
      ['fast', 1, 4, '2026-11-30T00:20:00.000Z'],
    ]);
  });

  it('shows an empty period as empty buckets, with no rate and no durations', async () => {
    const stats = await fixture.repositories.executions.stats('other-tenant', { from, to, bucketSeconds: 3600, topFlows: 5 });
    expect(stats).toMatchObject({ total: 0, ended: 0, successRate: null, durations: null, slowestFlows: [], failingFlows: [] });
    expect(stats.timeline.map((bucket) => bucket.counts)).toEqual([{}, {}, {}]);
  });

  it('filters a search by labels and by creation time', async () => {
    const labelled = await fixture.repositories.executions.create('main', {
      id: 'stats-labelled',
      namespace: 'company.team',
      flowId: 'fast',
      flowRevision: 1,
      state: 'CREATED',
      stateHistories: [{ state: 'CREATED', date: from }],
      labels: { team: 'data', env: 'dev' },
    });
    const byLabels = (labels: Record<string, string>) =>
      fixture.repositories.executions.search('main', { labels, page: 1, size: 50 }).then((page) => page.results.map((e) => e.id));
    expect(await byLabels({ team: 'data' })).toEqual([labelled.id]);
    expect(await byLabels({ team: 'data', env: 'dev' })).toEqual([labelled.id]);
    expect(await byLabels({ team: 'data', env: 'prod' })).toEqual([]);
    const inHourOne = await fixture.repositories.executions.search('main', {
      createdFrom: at(60),
      createdTo: at(120),
      page: 1,
      size: 50,
    });
    expect(inHourOne.results.map((e) => e.flowId)).toEqual(['slow', 'slow', 'slow']);
    expect(inHourOne.total).toBe(3);
  });
});
