import { useTestRepositories } from '../testing/test-database';

describe('MetricRepository', () => {
  const fixture = useTestRepositories();

  it('adds nothing when the same batch comes again', async () => {
    const points = [
      {
        taskRunId: 'tr-1',
        name: 'rows',
        type: 'COUNTER' as const,
        value: 3,
        tags: { b: '2', a: '1' },
        timestamp: new Date('2026-11-30T01:00:00Z'),
      },
    ];
    expect(await fixture.repositories.metrics.appendBatch('main', 'e-1', points)).toBe(1);
    expect(await fixture.repositories.metrics.appendBatch('main', 'e-1', points)).toBe(0);
    expect(await fixture.repositories.metrics.listForExecution('main', 'e-1')).toEqual([{ executionId: 'e-1', ...points[0] }]);
  });
});
