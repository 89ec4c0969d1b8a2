import { Client } from 'pg';
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

  it('writes the batches of several executions in one statement, keeping a point reported twice in its batch', async () => {
    const point = (value: number) => ({
      taskRunId: 'tr-1',
      name: 'rows',
      type: 'COUNTER' as const,
      value,
      tags: { table: 'orders' },
      timestamp: new Date('2026-11-30T01:00:00Z'),
    });
    const first = { tenantId: 'main', executionId: 'e-2', points: [point(1), point(1), point(2)] };
    const second = { tenantId: 'main', executionId: 'e-3', points: [point(5)] };
    const statements = jest.spyOn(Client.prototype, 'query');
    try {
      // The first batch twice in one call, as a redelivery fetched together with the original.
      expect(await fixture.repositories.metrics.appendBatches([first, second, first])).toBe(4);
      expect(statements).toHaveBeenCalledTimes(1);
    } finally {
      statements.mockRestore();
    }
    expect(await fixture.repositories.metrics.appendBatches([second, first])).toBe(0);
    expect((await fixture.repositories.metrics.listForExecution('main', 'e-2')).map((stored) => stored.value)).toEqual([1, 1, 2]);
    expect((await fixture.repositories.metrics.listForExecution('main', 'e-3')).map((stored) => stored.value)).toEqual([5]);
  });
});
