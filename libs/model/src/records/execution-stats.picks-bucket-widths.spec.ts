import { MAX_STATS_BUCKETS, statsBucketSeconds, statsBucketStarts } from './execution-stats';

describe('statsBucketSeconds', () => {
  const from = new Date('2026-12-01T00:00:00.000Z');
  const after = (seconds: number) => new Date(from.getTime() + seconds * 1000);

  it('uses minutes for an hour, hours for a week, days for a quarter and weeks for two years', () => {
    expect(statsBucketSeconds(from, after(3600))).toBe(60);
    expect(statsBucketSeconds(from, after(24 * 3600))).toBe(15 * 60);
    expect(statsBucketSeconds(from, after(7 * 24 * 3600))).toBe(3600);
    expect(statsBucketSeconds(from, after(90 * 24 * 3600))).toBe(24 * 3600);
    expect(statsBucketSeconds(from, after(2 * 365 * 24 * 3600))).toBe(7 * 24 * 3600);
  });

  it('never makes more buckets than a chart holds', () => {
    for (const days of [1, 3, 10, 30, 60, 180, 365, 1000]) {
      const to = after(days * 24 * 3600);
      expect(statsBucketStarts(from, to, statsBucketSeconds(from, to)).length).toBeLessThanOrEqual(MAX_STATS_BUCKETS);
    }
  });

  it('lists every bucket start of the period from its beginning', () => {
    expect(statsBucketStarts(from, after(3 * 3600), 3600).map((d) => d.toISOString())).toEqual([
      '2026-12-01T00:00:00.000Z',
      '2026-12-01T01:00:00.000Z',
      '2026-12-01T02:00:00.000Z',
    ]);
    expect(statsBucketStarts(from, after(90 * 60), 3600)).toHaveLength(2);
  });
});
