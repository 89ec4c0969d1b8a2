import { Pool } from 'pg';
import { databaseIsUnavailable, databaseRefusesForGood } from '../database-failure';
import { NotFound } from '../errors';
import { createPrismaClient } from '../prisma';
import { useTestRepositories } from '../testing/test-database';

describe('DeadLetterStore and the database failures that make a message poison', () => {
  const fixture = useTestRepositories();
  const at = new Date('2026-12-01T02:00:00.000Z');
  const letter = {
    consumerGroup: 'lanner-controller.default',
    topic: 'lanner.worker-jobs.default',
    partition: 3,
    offset: '42',
    key: 'tr-1',
    value: Buffer.from('{"payload":"a\\u0000b"}'),
    headers: { 'lanner-schema': '1', 'bad\u0000header': 'x\u0000y' },
    reason: 'the database refuses the value: unsupported Unicode escape sequence \u0000',
    attempts: 1,
    tenantId: 'main',
    executionId: 'e-1',
    at,
  };

  it('records a message once per consumer group and position, keeps its payload byte for byte, and drops it', async () => {
    const store = fixture.repositories.deadLetters;
    expect(await store.record(letter)).toBe(true);
    expect(await store.record({ ...letter, attempts: 2 })).toBe(false);
    expect(await store.record({ ...letter, consumerGroup: 'lanner-indexer' })).toBe(true);

    const { results, total } = await store.list({ limit: 10, offset: 0, topic: letter.topic });
    expect(total).toBe(2);
    const stored = results.find((row) => row.consumerGroup === letter.consumerGroup);
    if (stored === undefined) throw new Error('the recorded dead letter is not listed');
    expect(stored).toMatchObject({
      partition: 3,
      offset: '42',
      key: 'tr-1',
      attempts: 1,
      tenantId: 'main',
      executionId: 'e-1',
      bytes: letter.value.length,
    });
    // The reason and headers are stored with the NUL replaced, so parking a poison message never fails itself.
    expect(stored.reason).toBe('the database refuses the value: unsupported Unicode escape sequence \uFFFD');
    expect(stored.headers).toEqual({ 'lanner-schema': '1', 'bad\uFFFDheader': 'x\uFFFDy' });

    const payload = await store.payload(stored.id);
    expect(payload.value.equals(letter.value)).toBe(true);
    expect(payload).toMatchObject({ topic: letter.topic, key: 'tr-1' });

    await store.remove(stored.id);
    await expect(store.get(stored.id)).rejects.toBeInstanceOf(NotFound);
    await expect(store.remove(stored.id)).rejects.toBeInstanceOf(NotFound);
    await expect(store.get('not-a-uuid')).rejects.toBeInstanceOf(NotFound);
  });

  it('takes a NUL refused in jsonb, through Prisma or the pool, as lasting, and a lost connection as passing', async () => {
    let nulInJsonSeen: unknown;
    const pool = new Pool({ connectionString: fixture.database.url, max: 2 });
    const prisma = createPrismaClient(pool);
    try {
      const throughPrisma = await prisma.$queryRaw`SELECT ${'a\u0000b'}::text`.catch((error: unknown) => error);
      expect(String((throughPrisma as Error).message)).not.toContain('SELECT');
      expect(databaseRefusesForGood(throughPrisma)).toBe(true);
      const nulInJson = await pool.query(`SELECT '{"a":"\\u0000"}'::jsonb`).catch((error: unknown) => error);
      expect(databaseRefusesForGood(nulInJson)).toBe(true);
      nulInJsonSeen = nulInJson;
      const nulInText = await pool.query('SELECT $1::text', ['a\u0000b']).catch((error: unknown) => error);
      expect(databaseRefusesForGood(nulInText)).toBe(true);
      const overflow = await pool.query('SELECT $1::int', ['9007199254740991']).catch((error: unknown) => error);
      expect(databaseRefusesForGood(overflow)).toBe(true);
    } finally {
      await prisma.$disconnect();
      await pool.end();
    }

    const nowhere = new Pool({ connectionString: 'postgresql://nobody:nothing@127.0.0.1:1/none', connectionTimeoutMillis: 2000 });
    const lost = await nowhere.query('SELECT 1').catch((error: unknown) => error);
    await nowhere.end();
    expect(String((lost as Error).message)).toMatch(/ECONNREFUSED|connect/);
    expect(databaseRefusesForGood(lost)).toBe(false);
    expect(databaseIsUnavailable(lost)).toBe(true);
    expect(databaseIsUnavailable(nulInJsonSeen)).toBe(false);
  });

  it('a log line holding a NUL is stored with U+FFFD in its place, and its redelivery adds nothing', async () => {
    const line = { taskRunId: 'tr-nul', attempt: 1, level: 'INFO' as const, timestamp: at, message: 'before\u0000after \uD800' };
    expect(await fixture.repositories.logs.appendBatch('main', 'e-nul', [line])).toBe(1);
    expect(await fixture.repositories.logs.appendBatch('main', 'e-nul', [line])).toBe(0);
    const [stored] = await fixture.repositories.logs.list('main', 'e-nul');
    expect(stored.message).toBe('before\uFFFDafter \uFFFD');
  });
});
