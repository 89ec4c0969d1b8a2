import { Client } from 'pg';
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

  it('writes a batch in one statement, and two indexers writing the same batch at once store it once', async () => {
    const lines = Array.from({ length: 50 }, (_, index) => ({
      taskRunId: `tr-${index % 3}`,
      attempt: 1,
      level: 'INFO' as const,
      timestamp: at(index),
      message: `line ${index}`,
    }));
    const statements = jest.spyOn(Client.prototype, 'query');
    try {
      expect(await fixture.repositories.logs.appendBatch('main', 'e-3', lines.slice(0, 10))).toBe(10);
      expect(statements).toHaveBeenCalledTimes(1);
    } finally {
      statements.mockRestore();
    }
    // A partition handed over mid-batch: the old and the new owner write the same lines concurrently.
    const added = await Promise.all([
      fixture.repositories.logs.appendBatch('main', 'e-3', lines),
      fixture.repositories.logs.appendBatch('main', 'e-3', lines),
    ]);
    expect(added[0] + added[1]).toBe(40);
    const stored = await fixture.repositories.logs.list('main', 'e-3');
    expect(stored.map((line) => line.message)).toEqual(lines.map((line) => line.message));
  });

  it('writes the batches of several executions in one statement, and a batch that comes twice in it once', async () => {
    const batch = (executionId: string, messages: string[]) => ({
      tenantId: 'main',
      executionId,
      lines: messages.map((message, index) => ({
        taskRunId: 'tr-1',
        attempt: 1,
        level: 'INFO' as const,
        timestamp: at(index),
        message,
      })),
    });
    const first = batch('e-5', ['a', 'b']);
    const second = batch('e-6', ['c']);
    const statements = jest.spyOn(Client.prototype, 'query');
    try {
      expect(await fixture.repositories.logs.appendBatches([first, second, first])).toBe(3);
      expect(statements).toHaveBeenCalledTimes(1);
    } finally {
      statements.mockRestore();
    }
    expect(await fixture.repositories.logs.appendBatches([second, first])).toBe(0);
    expect((await fixture.repositories.logs.list('main', 'e-5')).map((line) => line.message)).toEqual(['a', 'b']);
    expect((await fixture.repositories.logs.list('main', 'e-6')).map((line) => line.message)).toEqual(['c']);
  });

  it('fills in the namespace and flow of an execution that exists, under its tenant only', async () => {
    const t0 = at(0);
    await fixture.repositories.executions.create('main', {
      id: 'e-4',
      namespace: 'company.team',
      flowId: 'hello',
      flowRevision: 1,
      state: 'CREATED',
      stateHistories: [{ state: 'CREATED', date: t0 }],
      inputs: {},
      labels: {},
    });
    const line = { taskRunId: 'tr-1', attempt: 1, level: 'INFO' as const, timestamp: t0, message: 'hello' };
    await fixture.repositories.logs.appendBatch('main', 'e-4', [line]);
    await fixture.repositories.logs.appendBatch('other', 'e-4', [line]);
    const client = new Client({ connectionString: fixture.database.url });
    await client.connect();
    try {
      const rows = await client.query(
        `SELECT tenant_id, namespace, flow_id FROM logs WHERE execution_id = 'e-4' ORDER BY tenant_id`,
      );
      expect(rows.rows).toEqual([
        { tenant_id: 'main', namespace: 'company.team', flow_id: 'hello' },
        { tenant_id: 'other', namespace: '', flow_id: '' },
      ]);
    } finally {
      await client.end();
    }
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
