import { useTestRepositories } from '../testing/test-database';

describe('LogRepository', () => {
  const fixture = useTestRepositories();
  const at = (ms: number) => new Date(Date.parse('2026-11-30T01:00:00.000Z') + ms);

  it('adds nothing when the same batch comes again, but keeps a line printed twice', async () => {
    const lines = [
      { taskRunId: 'tr-1', attempt: 1, level: 'INFO' as const, timestamp: at(0), message: 'start' },
      { taskRunId: 'tr-1', attempt: 1, level: 'WARN' as const, timestamp: at(1), message: 'retrying' },
      { taskRunId: 'tr-1', attempt: 1, level: 'WARN' as const, timestamp: at(1), message: 'retrying' },
    ];
    expect(await fixture.repositories.logs.appendBatch('main', 'e-1', lines)).toBe(3);
    expect(await fixture.repositories.logs.appendBatch('main', 'e-1', lines)).toBe(0);
    const stored = await fixture.repositories.logs.list('main', 'e-1');
    expect(stored.map((line) => line.message)).toEqual(['start', 'retrying', 'retrying']);
    // Logs may come before the execution row: the flow is then unknown, and the lines are kept.
    expect(stored[0]).toMatchObject({ executionId: 'e-1', taskRunId: 'tr-1', attempt: 1, level: 'INFO', timestamp: at(0) });
  });

  it('filters by minimum level and task run, pages after a line id, and keeps tenants apart', async () => {
    await fixture.repositories.logs.appendBatch('main', 'e-2', [
      { taskRunId: 'a', attempt: 1, level: 'DEBUG', timestamp: at(0), message: 'debug' },
      { taskRunId: 'a', attempt: 1, level: 'ERROR', timestamp: at(1), message: 'error' },
      { taskRunId: 'b', attempt: 2, level: 'WARN', timestamp: at(2), message: 'warn' },
    ]);
    expect((await fixture.repositories.logs.list('main', 'e-2', { minLevel: 'WARN' })).map((l) => l.message)).toEqual([
      'error',
      'warn',
    ]);
    expect((await fixture.repositories.logs.list('main', 'e-2', { taskRunId: 'b' })).map((l) => l.message)).toEqual(['warn']);
    const [first] = await fixture.repositories.logs.list('main', 'e-2');
    expect((await fixture.repositories.logs.list('main', 'e-2', { afterId: first.id })).map((l) => l.message)).toEqual([
      'error',
      'warn',
    ]);
    expect(await fixture.repositories.logs.list('other', 'e-2')).toEqual([]);
  });
});
