import { bucketLabel, formatMs, formatRate, periodById } from './periods';

describe('dashboard periods and figures', () => {
  it('takes a known period from the address and falls back to the last 24 hours', () => {
    expect(periodById('7d').ms).toBe(7 * 24 * 3_600_000);
    expect(periodById('nonsense').id).toBe('24h');
    expect(periodById(null).id).toBe('24h');
  });

  it('writes rates as percentages and durations in the unit that reads best', () => {
    expect(formatRate(null)).toBe('—');
    expect(formatRate(5 / 6)).toBe('83.3 %');
    expect(formatMs(850)).toBe('850 ms');
    expect(formatMs(12_340)).toBe('12.3 s');
    expect(formatMs(245_000)).toBe('4 min 05 s');
  });

  it('labels day buckets with a date and shorter ones with a time', () => {
    expect(bucketLabel('2026-12-01T12:00:00.000Z', 86_400)).not.toMatch(/:/);
    expect(bucketLabel('2026-12-01T12:00:00.000Z', 3600)).toMatch(/\d{2}.\d{2}/);
  });
});
